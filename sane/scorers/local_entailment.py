"""statement_entailment: fraction of the candidate's sentences that the reference supports.

No NLI model ships on PyPI, so entailment is asked of the local instruction
model (default `local/qwen2.5-coder-1.5b`; `model:` in the target overrides
it, any litellm string works). The candidate is split into sentences (pysbd,
rule-based, offline) and each sentence is checked against the reference with a
structured SupportVerdict; the score is supported / total on a continuous 0..1
contract, higher is better (a faithfulness-style metric).

A failed verdict (LLMError) propagates: it is an error of the target, never a
sentence counted as unsupported. A candidate with no sentence is a ScorerError
rather than a made-up score. Repeats use distinct sample indices, so a
sampling temperature gives distinct draws; at temperature 0 the metric is
deterministic.
"""

from __future__ import annotations

import asyncio
from functools import cache
from typing import TYPE_CHECKING

import pysbd
from pydantic import BaseModel, Field

from sane.errors import InputError, ScorerError
from sane.local.templating import render
from sane.records import OutputContract
from sane.scorers.base import BuildContext, BuiltinConfig, Target, register_metric
from sane.scorers.local_fields import reference_field

if TYPE_CHECKING:
    from sane.llm import LLMClient

METRIC = "statement_entailment"
DEFAULT_MODEL = "local/qwen2.5-coder-1.5b"
MAX_TOKENS = 200
UNIT_CONTRACT = OutputContract(type="continuous", min=0.0, max=1.0, higher_is_better=True)


class SupportVerdict(BaseModel):
    """Whether the source supports one statement, after quoting the relevant evidence.

    Quoting first grounds a small model in the source; asking for a free-text
    rationale instead made Qwen2.5-Coder-1.5B call invented claims "supported".
    """

    evidence: str = Field(max_length=400, description="the relevant source sentence, or 'none'")
    supported: bool


@cache
def _segmenter() -> pysbd.Segmenter:
    return pysbd.Segmenter(language="en", clean=False)


def split_sentences(text: str) -> list[str]:
    """The non-empty sentences of a text."""
    return [s.strip() for s in _segmenter().segment(text) if s.strip()]


def verdict_messages(source: str, statement: str) -> list[dict[str, str]]:
    """One sentence against the source. The rest of the candidate is left out on purpose:
    shown it, the 1.5B model confused the candidate's claims with the source's."""
    return [
        {"role": "system", "content": render("entail_system.j2").strip()},
        {
            "role": "user",
            "content": render("entail_user.j2", source=source, statement=statement).strip(),
        },
    ]


class StatementEntailment:
    """Sentence-level support of the candidate by the reference, judged by an LLM."""

    metric = METRIC

    def __init__(self, config: BuiltinConfig, context: BuildContext) -> None:
        if context.llm is None:
            raise InputError(
                "spec", f"targets.{config.name}.metric", f"'{METRIC}' needs an LLM client"
            )
        self.name = config.name
        self.llm: LLMClient = context.llm
        self.model = config.model or DEFAULT_MODEL
        self.temperature = config.temperature
        self.candidate_field = context.spec.scored_field
        self.reference_field = reference_field(config, context, METRIC)
        self.contract = UNIT_CONTRACT.model_copy()
        self.deterministic = config.temperature == 0

    @property
    def fields(self) -> tuple[str, ...]:
        return (self.candidate_field, self.reference_field)

    async def _supported(self, source: str, statement: str, repeat: int) -> bool:
        verdict = await self.llm.structured(
            self.model,
            verdict_messages(source, statement),
            SupportVerdict,
            task=f"entail:{self.name}",
            sample_index=repeat,
            temperature=self.temperature,
            max_tokens=MAX_TOKENS,
        )
        return verdict.supported

    async def score(self, record: dict[str, str], repeat: int = 0) -> float:
        missing = [f for f in self.fields if f not in record]
        if missing:
            raise ScorerError(f"{self.name}: record lacks field(s) {missing}")
        candidate, source = record[self.candidate_field], record[self.reference_field]
        sentences = split_sentences(candidate)
        if not sentences:
            raise ScorerError(f"{self.name}: the candidate has no sentence to check")
        verdicts = await asyncio.gather(*(self._supported(source, s, repeat) for s in sentences))
        return sum(verdicts) / len(verdicts)

    async def score_batch(self, records: list[dict[str, str]]) -> list[float]:
        return list(await asyncio.gather(*(self.score(record) for record in records)))


@register_metric(METRIC)
def _entailment(config: BuiltinConfig, context: BuildContext) -> Target:
    return StatementEntailment(config, context)
