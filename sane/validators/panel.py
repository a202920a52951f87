"""The oracle panel: k independent votes, strict majority, unresolved is invalid.

Votes are spread over the panel's models round-robin and numbered by sample
index, so k votes are k distinct cache entries and a rerun replays them.
A vote whose call or parse fails is stored as `unresolved` with the error,
and it can never count toward a majority.
"""

from __future__ import annotations

import asyncio
from typing import Literal

from pydantic import BaseModel

from sane.errors import LLMError
from sane.llm import LLMClient
from sane.records import Decision, PanelDecision, Question, Vote


class VoteDraft(BaseModel):
    rationale: str = ""
    decision: Literal["yes", "no"]


def majority(votes: list[Vote], k: int) -> Decision:
    """Strict majority of the k votes asked for; anything else is unresolved."""
    yes = sum(v.decision is Decision.yes for v in votes)
    no = sum(v.decision is Decision.no for v in votes)
    if yes * 2 > k:
        return Decision.yes
    if no * 2 > k:
        return Decision.no
    return Decision.unresolved


class OraclePanel:
    def __init__(
        self, llm: LLMClient, models: list[str], votes: int, temperature: float, seed: int = 0
    ) -> None:
        if votes < 1:
            raise ValueError("a panel needs at least one vote")
        self.llm = llm
        self.models = models
        self.k = votes
        self.temperature = temperature
        self.seed = seed

    async def _vote(
        self, subject_id: str, question: Question, prompt: list[dict[str, str]], index: int
    ) -> Vote:
        model = self.models[index % len(self.models)]
        base = {"subject_id": subject_id, "question": question, "model": model, "sample_index": index}
        try:
            draft = await self.llm.structured(
                model,
                prompt,
                VoteDraft,
                task=f"vote:{question.value}",
                sample_index=index,
                temperature=self.temperature,
                seed=self.seed,
            )
        except LLMError as exc:
            return Vote(**base, decision=Decision.unresolved, error=exc.cause)
        return Vote(
            **base,
            decision=Decision(draft.decision),
            rationale=draft.rationale,
            raw=draft.model_dump_json(),
        )

    async def decide(
        self, subject_id: str, question: Question, prompt: list[dict[str, str]]
    ) -> PanelDecision:
        votes = await asyncio.gather(
            *(self._vote(subject_id, question, prompt, i) for i in range(self.k))
        )
        return PanelDecision(
            subject_id=subject_id,
            question=question,
            decision=majority(list(votes), self.k),
            votes=list(votes),
        )
