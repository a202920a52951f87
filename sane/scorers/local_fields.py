"""Shared shape of the local-model metrics: a candidate field against a reference field.

Every local metric reads the spec's scored field as the candidate and the
target's `reference_field` as the reference, validates both when the target is
built (bad input names `targets.<name>.reference_field`), runs its model work
in a worker thread so the event loop keeps serving other targets, and refuses
to return a value outside its own output contract: such a value is a
ScorerError, never a silently clipped score.
"""

from __future__ import annotations

import asyncio
import math
from typing import ClassVar

from sane.errors import InputError, ScorerError
from sane.records import OutputContract
from sane.scorers.base import BuildContext, BuiltinConfig

Pair = tuple[str, str]
"""(candidate, reference)"""


def reference_field(config: BuiltinConfig, context: BuildContext, metric: str) -> str:
    """The validated reference field of a target (InputError naming the spec field)."""
    where = f"targets.{config.name}.reference_field"
    spec = context.spec
    reference = config.reference_field
    if not reference:
        raise InputError("spec", where, f"builtin metric '{metric}' needs a reference_field")
    if reference not in spec.fields:
        raise InputError("spec", where, f"'{reference}' is not one of fields {sorted(spec.fields)}")
    if reference == spec.scored_field:
        raise InputError(
            "spec", where, f"'{reference}' is the scored field; a metric needs another field"
        )
    return reference


class PairMetric:
    """Base of the local candidate/reference metrics; subclasses implement `compute`."""

    metric: ClassVar[str]
    contract: OutputContract
    deterministic: bool = True
    _warmed: bool = False

    def __init__(self, config: BuiltinConfig, context: BuildContext) -> None:
        self.name = config.name
        self.candidate_field = context.spec.scored_field
        self.reference_field = reference_field(config, context, self.metric)

    @property
    def fields(self) -> tuple[str, ...]:
        return (self.candidate_field, self.reference_field)

    def pair(self, record: dict[str, str]) -> Pair:
        missing = [f for f in self.fields if f not in record]
        if missing:
            raise ScorerError(f"{self.name}: record lacks field(s) {missing}")
        return record[self.candidate_field], record[self.reference_field]

    def checked(self, value: float) -> float:
        """The value if it is finite and inside the contract, else a ScorerError."""
        if not math.isfinite(value) or not self.contract.contains(value):
            raise ScorerError(
                f"{self.name}: {self.metric} produced {value!r}, outside its contract "
                f"[{self.contract.min}, {self.contract.max}]"
            )
        return float(value)

    def compute(self, pairs: list[Pair]) -> list[float]:
        """Raw scores for many pairs at once (runs in a worker thread)."""
        raise NotImplementedError

    def load(self) -> None:
        """Load the metric's model (blocking; once per process, by the model's module)."""

    async def warm(self) -> None:
        """Load the model before the first call is timed (sane.scorers.execute._warm): its
        loading took the call's whole `--timeout` on a loaded machine (MiniLM, BERTScore)."""
        if not self._warmed:
            await asyncio.to_thread(self.load)
            self._warmed = True

    async def score(self, record: dict[str, str], repeat: int = 0) -> float:
        return (await self.score_batch([record]))[0]

    async def score_batch(self, records: list[dict[str, str]]) -> list[float]:
        pairs = [self.pair(record) for record in records]
        if not pairs:
            return []
        values = await asyncio.to_thread(self.compute, pairs)
        if len(values) != len(pairs):
            raise ScorerError(f"{self.name}: {len(values)} scores for {len(pairs)} records")
        return [self.checked(value) for value in values]
