"""Cross-case batching of batch-capable targets: same verdicts, fewer scorer calls."""

from __future__ import annotations

from dataclasses import dataclass, field

from sane.records import Case, OutputContract, PairRelation, Recipe, ScorerSpec, Verdict
from sane.scorers.execute import batchable, run_case, run_case_batch

SPEC = ScorerSpec(
    name="s",
    criterion="c",
    fields={"source": "s", "summary": "t"},
    scored_field="summary",
    output=OutputContract(min=0.0, max=1.0),
)
RECIPE = Recipe(
    id="rec-1-1",
    capability_id="cap-1",
    requirement="monotonicity",
    name="r",
    instruction="i",
    variant_roles=["original", "perturbed"],
    relation=PairRelation(kind="decrease"),
    rationale="r",
)


def _case(i: int, perturbed: str) -> Case:
    return Case(
        id=f"rec-1-1/case-{i}",
        recipe_id="rec-1-1",
        index=i,
        example_index=0,
        example={"source": "src", "summary": "good text"},
        variants={"original": "good text", "perturbed": perturbed},
    )


@dataclass
class LengthMetric:
    """Deterministic: shorter summaries score lower; 'BAD' scores outside the contract."""

    name: str = "length"
    contract: OutputContract = field(default_factory=OutputContract)
    fields: tuple[str, ...] = ("summary",)
    deterministic: bool = True
    batches: list[int] = field(default_factory=list)
    explode_batches: bool = False

    def _value(self, record: dict[str, str]) -> float:
        return 7.0 if "BAD" in record["summary"] else min(1.0, len(record["summary"]) / 20)

    async def score(self, record: dict[str, str], repeat: int = 0) -> float:
        return self._value(record)

    async def score_batch(self, records: list[dict[str, str]]) -> list[float]:
        self.batches.append(len(records))
        if self.explode_batches and len(records) > 2:
            raise RuntimeError("batch too big")
        return [self._value(r) for r in records]


CASES = [_case(0, "bad"), _case(1, "good text, longer"), _case(2, "BAD"), _case(3, "meh")]


async def test_batch_matches_case_by_case() -> None:
    target = LengthMetric()
    items = [(RECIPE, case) for case in CASES]
    batched = await run_case_batch(target, SPEC, items, 0.05, timeout_s=5)
    assert target.batches == [8]  # four cases' variants in one call
    singles = [await run_case(target, SPEC, RECIPE, c, 0.05, timeout_s=5) for c in CASES]
    assert [r.model_dump() for r in batched] == [r.model_dump() for r in singles]
    verdicts = [r.verdict for r in batched]
    assert verdicts == [Verdict.passed, Verdict.fault, Verdict.error, Verdict.passed]
    assert "outside its contract" in (batched[2].error or "")


async def test_failed_batch_is_retried_case_by_case() -> None:
    target = LengthMetric(explode_batches=True)
    items = [(RECIPE, case) for case in CASES]
    records = await run_case_batch(target, SPEC, items, 0.05, timeout_s=5)
    assert [r.verdict for r in records] == [
        Verdict.passed,
        Verdict.fault,
        Verdict.error,
        Verdict.passed,
    ]


def test_only_batch_capable_deterministic_targets_batch() -> None:
    assert batchable(LengthMetric(), RECIPE, CASES[0], repeats=3)
    assert not batchable(LengthMetric(deterministic=False), RECIPE, CASES[0], repeats=3)
    assert batchable(LengthMetric(deterministic=False), RECIPE, CASES[0], repeats=1)
    broken = CASES[0].model_copy(update={"error": "not generated"})
    assert not batchable(LengthMetric(), RECIPE, broken, repeats=1)
