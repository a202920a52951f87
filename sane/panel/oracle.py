"""The oracle panel: k independent votes, strict majority, unresolved is invalid.

Votes are spread over the panel's models round-robin and numbered by sample
index, so k votes are k distinct cache entries and a rerun replays them. Each vote is also
its own request: it carries a sampling seed of its own (`vote_seed`, from the run's seed and
the vote's index, stored with the vote), so behind a seeded server (vLLM, llama.cpp's server,
OpenAI's `seed`) k votes are k samples, not one answer counted k times.
A vote whose call or parse fails is stored as `unresolved` with the error,
and it can never count toward a majority.

Sequential mode (the default) asks the smallest number of votes that could
decide (floor(k/2) + 1) at once, then one more at a time only while the outcome
is still open. Vote i is the same call (same cache key) in both modes, and a
strict majority of k cannot be overturned by the votes not asked, so the
decision is the one the full panel would reach; only the number of calls differs.

A vote on a ballot with a contrast (sane.panel.ballots) is two calls under one
sample index: the question and its contrast (the texts' roles exchanged, or a decoy
instruction). When the two answers contradict each other the vote is `unresolved`
(no error: the model answered, but its answer was no answer about the case).

With `rationale` (the default) each vote writes one short sentence before its answer;
without, the answer alone (sane.panel.ballots): on the embedded model a rationale is most
of what a vote generates, and the answer does not get better for it (docs/validity.md).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from typing import TYPE_CHECKING

from pydantic import BaseModel

from sane.errors import LLMError
from sane.llm import capture_transcripts
from sane.panel.ballots import Ballot, YesNoBallot, vote_call
from sane.records import Decision, PanelDecision, Question, Vote

if TYPE_CHECKING:  # the client (litellm) loads when a run starts, not on import
    from sane.llm import LLMClient
    from sane.panel.kinds import PanelQuestion

Prompt = list[dict[str, str]]


def vote_seed(run_seed: int, index: int) -> int:
    """The sampling seed of a decision's vote `index`: derived from the run's seed and the
    index by a hash, so votes differ from each other and a run with another seed shares none
    of them (run_seed + index would give seed 1's vote 0 the same draw as seed 0's vote 1).
    Below 2**31, which every provider takes."""
    digest = hashlib.sha256(f"vote:{run_seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:4], "little") & 0x7FFFFFFF


def majority(votes: list[Vote], k: int) -> Decision:
    """Strict majority of the k votes asked for; anything else is unresolved."""
    yes = sum(v.decision is Decision.yes for v in votes)
    no = sum(v.decision is Decision.no for v in votes)
    if yes * 2 > k:
        return Decision.yes
    if no * 2 > k:
        return Decision.no
    return Decision.unresolved


def settled(votes: list[Vote], k: int) -> Decision | None:
    """The decision the full panel of k must reach, or None while the unasked votes could
    still change it (a side needs a strict majority; unresolved votes count for neither)."""
    decision = majority(votes, k)
    if decision is not Decision.unresolved:
        return decision
    remaining = k - len(votes)
    yes = sum(v.decision is Decision.yes for v in votes)
    no = sum(v.decision is Decision.no for v in votes)
    if (yes + remaining) * 2 <= k and (no + remaining) * 2 <= k:
        return Decision.unresolved
    return None


class OraclePanel:
    def __init__(
        self,
        llm: LLMClient,
        models: list[str],
        votes: int,
        temperature: float,
        seed: int = 0,
        *,
        sequential: bool = True,
        rationale: bool = True,
    ) -> None:
        if votes < 1:
            raise ValueError("a panel needs at least one vote")
        self.llm = llm
        self.models = models
        self.k = votes
        self.temperature = temperature
        self.seed = seed
        self.sequential = sequential
        self.rationale = rationale

    async def _ask(self, model: str, prompt: Prompt, index: int, ballot: Ballot) -> BaseModel:
        sent, reply = vote_call(prompt, ballot, self.rationale)
        return await self.llm.structured(
            model,
            sent,
            reply,
            task=f"vote:{ballot.task}",
            shape_shown=True,  # vote_call ends the prompt with `Return {...}`
            sample_index=index,
            temperature=self.temperature,
            seed=vote_seed(self.seed, index),
        )

    async def _vote(
        self,
        subject_id: str,
        question: Question,
        prompts: tuple[Prompt, Prompt | None],
        index: int,
        ballot: Ballot,
    ) -> Vote:
        model = self.models[index % len(self.models)]
        base = {
            "subject_id": subject_id,
            "question": question,
            "model": model,
            "sample_index": index,
            "seed": vote_seed(self.seed, index),
        }
        prompt, contrast = prompts
        with capture_transcripts() as keys:
            try:
                if contrast is None:
                    draft = await self._ask(model, prompt, index, ballot)
                else:
                    draft, other = await asyncio.gather(
                        self._ask(model, prompt, index, ballot),
                        self._ask(model, contrast, index, ballot),
                    )
            except LLMError as exc:
                if exc.authentication:
                    raise  # a refused key is no vote: every later call would be refused too
                return Vote(**base, decision=Decision.unresolved, error=exc.cause, transcripts=keys)
        base["transcripts"] = keys
        if contrast is None:
            return Vote(
                **base,
                decision=ballot.decision(draft),
                rationale=draft.rationale,
                raw=draft.model_dump_json(),
            )
        decision, note = ballot.combine(draft, other)
        return Vote(
            **base,
            decision=decision,
            rationale=f"{note}{draft.rationale} | {ballot.contrast}: {other.rationale}",
            raw=json.dumps(
                {"as_asked": draft.model_dump(), str(ballot.contrast): other.model_dump()},
                separators=(",", ":"),
            ),
        )

    async def decide_question(self, subject_id: str, asked: PanelQuestion) -> PanelDecision:
        """The panel's decision on a question its kind rendered (sane.panel.kinds)."""
        return await self.decide(
            subject_id, asked.question, asked.prompt, asked.ballot, contrast=asked.contrast
        )

    async def decide(
        self,
        subject_id: str,
        question: Question,
        prompt: Prompt,
        ballot: Ballot | None = None,
        *,
        contrast: Prompt | None = None,
    ) -> PanelDecision:
        """The panel's decision; `ballot` says how each vote is asked (yes/no by default).
        `contrast` is the prompt of the ballot's contrast question (sane.panel.ballots)."""
        ballot = ballot or YesNoBallot(task=question.value)
        if (ballot.contrast is None) != (contrast is None):
            raise ValueError("a ballot with a contrast needs its contrast prompt, and only it")
        prompts = (prompt, contrast)
        first = self.k // 2 + 1 if self.sequential else self.k
        votes = list(
            await asyncio.gather(
                *(self._vote(subject_id, question, prompts, i, ballot) for i in range(first))
            )
        )
        while settled(votes, self.k) is None:
            votes.append(await self._vote(subject_id, question, prompts, len(votes), ballot))
        return PanelDecision(
            subject_id=subject_id,
            question=question,
            decision=majority(votes, self.k),
            votes=votes,
        )
