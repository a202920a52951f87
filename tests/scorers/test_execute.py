"""Execution: every broken score becomes an error record; good scores are normalised."""

from __future__ import annotations

import asyncio
import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from sane.errors import LLMError, ScorerError
from sane.records import (
    Case,
    OutputContract,
    PairRelation,
    Recipe,
    RepeatableRelation,
    Requirement,
    ScorerSpec,
    Verdict,
)
from sane.scorers import build_target, estimate_tolerance, normalise, run_case, score_variants
from sane.scorers.base import BuildContext
from sane.target_kind import target_config

TIMEOUT = 0.3

# ------------------------------------------------------------ user functions


def counts_errors(record: dict[str, str]) -> float:
    """A 1-5 faithfulness score: 5 minus one per 'ERROR' token."""
    return max(1.0, 5.0 - record["summary"].count("ERROR"))


def raises(record: dict[str, str]) -> float:
    raise RuntimeError("model exploded\nwith a traceback")


def returns_nan(record: dict[str, str]) -> float:
    return math.nan


def returns_inf(record: dict[str, str]) -> float:
    return math.inf


def returns_string(record: dict[str, str]) -> str:
    return "4"


def returns_none(record: dict[str, str]) -> None:
    return None


def returns_bool(record: dict[str, str]) -> bool:
    return True


def out_of_range(record: dict[str, str]) -> float:
    return 7.0


async def hangs(record: dict[str, str]) -> float:
    await asyncio.sleep(30)
    return 3.0


def hangs_sync(record: dict[str, str]) -> float:
    time.sleep(1.0)
    return 3.0


def ref(name: str) -> str:
    return f"{__name__}:{name}"


# ------------------------------------------------------------------ fixtures


def python_target(context: BuildContext, name: str, **extra: object):
    return build_target(target_config(name=name, kind="python", ref=ref(name), **extra), context)


def pair_recipe(kind: str = "decrease") -> Recipe:
    return Recipe(
        id="r1",
        capability_id="c1",
        requirement=Requirement.monotonicity,
        name="add a false claim",
        instruction="insert an unsupported claim",
        variant_roles=["original", "perturbed"],
        relation=PairRelation(kind=kind),
        rationale="an unsupported claim lowers faithfulness",
    )


def pair_case(perturbed: str = "ERROR ERROR the cat sat") -> Case:
    return Case(
        id="case1",
        recipe_id="r1",
        index=0,
        example_index=0,
        example={"source": "the cat sat on the mat", "summary": "the cat sat"},
        variants={"original": "the cat sat", "perturbed": perturbed},
    )


# --------------------------------------------------------------------- tests


async def test_run_case_passes_a_well_behaved_target(
    context: BuildContext, spec: ScorerSpec
) -> None:
    target = python_target(context, "counts_errors")
    record = await run_case(target, spec, pair_recipe(), pair_case(), 0.05, timeout_s=TIMEOUT)
    assert record.verdict == Verdict.passed, record.detail
    assert record.scores == {"original": [5.0], "perturbed": [3.0]}
    assert record.normalised == {"original": [1.0], "perturbed": [0.5]}
    assert record.tolerance == 0.05 and record.error is None
    assert (record.target, record.case_id, record.recipe_id) == ("counts_errors", "case1", "r1")


async def test_run_case_reports_a_fault(context: BuildContext, spec: ScorerSpec) -> None:
    target = python_target(context, "counts_errors")
    case = pair_case(perturbed="the cat sat")  # no change: a decrease relation must fault
    record = await run_case(target, spec, pair_recipe(), case, 0.05, timeout_s=TIMEOUT)
    assert record.verdict == Verdict.fault
    assert "dropped 0.00" in record.detail


@pytest.mark.parametrize(
    ("name", "cause"),
    [
        ("raises", "raised RuntimeError: model exploded with a traceback"),
        ("returns_nan", "non-finite"),
        ("returns_inf", "non-finite"),
        ("returns_string", "non-number '4'"),
        ("returns_none", "non-number None"),
        ("returns_bool", "non-number True"),
        ("out_of_range", "outside its contract [1, 5]"),
        ("hangs", "timed out after 0.3s"),
        ("hangs_sync", "timed out after 0.3s"),
    ],
)
async def test_broken_targets_give_error_records(
    context: BuildContext, spec: ScorerSpec, name: str, cause: str
) -> None:
    target = python_target(context, name)
    record = await run_case(target, spec, pair_recipe(), pair_case(), 0.05, timeout_s=TIMEOUT)
    assert record.verdict == Verdict.error
    assert record.error is not None and "\n" not in record.error
    assert f"target {name}" in record.error and "role" in record.error
    assert cause in record.error


async def test_score_variants_raises_scorer_error(context: BuildContext) -> None:
    target = python_target(context, "returns_nan")
    with pytest.raises(ScorerError, match="target returns_nan on role original"):
        await score_variants(target, {"original": {"source": "s", "summary": "x"}}, 1, TIMEOUT)


async def test_missing_variant_role_is_an_error(context: BuildContext, spec: ScorerSpec) -> None:
    target = python_target(context, "counts_errors")
    case = pair_case().model_copy(update={"variants": {"original": "the cat sat"}})
    record = await run_case(target, spec, pair_recipe(), case, 0.05, timeout_s=TIMEOUT)
    assert record.verdict == Verdict.error and "perturbed" in (record.error or "")


async def test_failed_case_generation_is_an_error(context: BuildContext, spec: ScorerSpec) -> None:
    target = python_target(context, "counts_errors")
    case = pair_case().model_copy(update={"error": "agent output unparseable"})
    record = await run_case(target, spec, pair_recipe(), case, 0.05, timeout_s=TIMEOUT)
    assert record.verdict == Verdict.error


# ----------------------------------------------------------- normalisation


def test_normalise_flips_when_directions_differ() -> None:
    toxicity = OutputContract(min=0, max=10, higher_is_better=False)
    judge = OutputContract(type="ordinal", min=1, max=5, higher_is_better=True)
    assert normalise(2.0, toxicity, toxicity) == pytest.approx(0.2)
    assert normalise(2.0, toxicity, judge) == pytest.approx(0.8)
    assert normalise(4.0, judge, judge) == pytest.approx(0.75)
    assert normalise(4.0, judge, toxicity) == pytest.approx(0.25)


async def test_lower_is_better_target_is_read_in_the_spec_direction(
    context: BuildContext, spec: ScorerSpec
) -> None:
    # the target scores *unfaithfulness* on 0..4 (lower is better); the spec is 1-5 faithfulness
    contract = OutputContract(min=0, max=4, higher_is_better=False)
    target = build_target(
        target_config(
            name="unfaith", kind="python", ref=ref("counts_errors_inverse"), output=contract
        ),
        context,
    )
    record = await run_case(target, spec, pair_recipe(), pair_case(), 0.05, timeout_s=TIMEOUT)
    assert record.scores == {"original": [0.0], "perturbed": [2.0]}
    assert record.normalised == {"original": [1.0], "perturbed": [0.5]}
    assert record.verdict == Verdict.passed, record.detail


def counts_errors_inverse(record: dict[str, str]) -> float:
    return 5.0 - counts_errors(record)


# --------------------------------------------------------- repeats & batching


@dataclass
class CountingTarget:
    """A fake target that records how it is called."""

    name: str = "fake"
    contract: OutputContract = field(default_factory=OutputContract)
    fields: tuple[str, ...] = ("summary",)
    deterministic: bool = False
    values: Callable[[str, int], float] = lambda text, repeat: 0.5
    calls: list[tuple[str, int]] = field(default_factory=list)

    async def score(self, record: dict[str, str], repeat: int = 0) -> float:
        self.calls.append((record["summary"], repeat))
        return self.values(record["summary"], repeat)


@dataclass
class BatchingTarget(CountingTarget):
    batches: int = 0

    async def score_batch(self, records: list[dict[str, str]]) -> list[float]:
        self.batches += 1
        return [await self.score(r) for r in records]


RECORDS = {"a": {"summary": "x"}, "b": {"summary": "y"}}


async def test_repeats_pass_repeat_index() -> None:
    target = CountingTarget(values=lambda text, repeat: 0.1 * repeat)
    scores = await score_variants(target, RECORDS, 3, TIMEOUT)
    assert scores == {"a": [0.0, 0.1, 0.2], "b": [0.0, 0.1, 0.2]}
    assert sorted(target.calls) == [("x", 0), ("x", 1), ("x", 2), ("y", 0), ("y", 1), ("y", 2)]


async def test_deterministic_target_is_scored_once() -> None:
    target = CountingTarget(deterministic=True)
    scores = await score_variants(target, RECORDS, 3, TIMEOUT)
    assert scores == {"a": [0.5] * 3, "b": [0.5] * 3}
    assert len(target.calls) == 2


async def test_batch_used_only_when_no_repeats_are_lost() -> None:
    target = BatchingTarget(deterministic=True)
    assert await score_variants(target, RECORDS, 3, TIMEOUT) == {"a": [0.5] * 3, "b": [0.5] * 3}
    assert target.batches == 1
    noisy = BatchingTarget()
    await score_variants(noisy, RECORDS, 1, TIMEOUT)
    assert noisy.batches == 1
    await score_variants(noisy, RECORDS, 2, TIMEOUT)
    assert noisy.batches == 1 and len(noisy.calls) == 2 + 4


async def test_batch_of_wrong_length_is_an_error() -> None:
    class Short(BatchingTarget):
        async def score_batch(self, records: list[dict[str, str]]) -> list[float]:
            return [0.5]

    with pytest.raises(ScorerError, match="score_batch returned"):
        await score_variants(Short(deterministic=True), RECORDS, 1, TIMEOUT)


async def test_llm_error_is_recorded_not_scored(spec: ScorerSpec) -> None:
    async def fail(record: dict[str, str], repeat: int = 0) -> float:
        raise LLMError("openai/x", "rate limited")

    target = CountingTarget(contract=spec.output, fields=("source", "summary"))
    target.score = fail  # type: ignore[method-assign]
    record = await run_case(target, spec, pair_recipe(), pair_case(), 0.05, timeout_s=TIMEOUT)
    assert record.verdict == Verdict.error and "rate limited" in (record.error or "")


async def test_repeatable_relation_uses_its_own_repeats(spec: ScorerSpec) -> None:
    flaky = CountingTarget(
        contract=spec.output, fields=("summary",), values=lambda text, repeat: 1.0 + 2 * repeat
    )
    recipe = Recipe(
        id="r2",
        capability_id="c1",
        requirement=Requirement.repeatability,
        name="rerun",
        instruction="score again",
        variant_roles=["original"],
        relation=RepeatableRelation(repeats=3),
        rationale="same input, same score",
    )
    case = pair_case().model_copy(update={"variants": {"original": "the cat sat"}})
    record = await run_case(flaky, spec, recipe, case, 0.05, timeout_s=TIMEOUT)
    assert record.scores == {"original": [1.0, 3.0, 5.0]}
    assert record.verdict == Verdict.fault
    stable = CountingTarget(contract=spec.output, values=lambda text, repeat: 4.0)
    record = await run_case(stable, spec, recipe, case, 0.05, timeout_s=TIMEOUT)
    assert record.verdict == Verdict.passed and len(stable.calls) == 3


# ------------------------------------------------------------------ tolerance


async def test_tolerance_from_repeat_noise() -> None:
    # each record's repeats are 0.4, 0.6, 0.5: sample std 0.1 -> tolerance 2 * 0.1
    target = CountingTarget(values=lambda text, repeat: [0.4, 0.6, 0.5][repeat])
    records = [{"summary": "a"}, {"summary": "b"}]
    estimate = await estimate_tolerance(target, records, OutputContract(), timeout_s=TIMEOUT)
    assert estimate.noise_std == pytest.approx(0.1)
    assert estimate.tolerance == pytest.approx(0.2)
    assert (estimate.samples, estimate.errors, estimate.floor) == (2, 0, 0.0)
    assert estimate.spread == 0.0 and estimate.spread_share == 0.1  # both records mean 0.5


async def test_tolerance_scales_with_the_targets_own_spread() -> None:
    """A deterministic target's bar is a share of the standard deviation of its scores over
    the records (0.2, 0.4, 0.6, 0.8 -> 0.2236), or the floor where that is larger; its level
    is their median."""
    levels = {"a": 0.2, "b": 0.4, "c": 0.6, "d": 0.8}
    target = CountingTarget(deterministic=True, values=lambda text, repeat: levels[text])
    records = [{"summary": text} for text in levels]
    spread = statistics.pstdev(levels.values())
    estimate = await estimate_tolerance(target, records, OutputContract(), timeout_s=TIMEOUT)
    assert estimate.spread == pytest.approx(spread) and estimate.noise_std == 0.0
    assert estimate.tolerance == pytest.approx(0.1 * spread)
    assert estimate.level == pytest.approx(0.5)
    wider = await estimate_tolerance(
        target, records, OutputContract(), spread_share=0.5, timeout_s=TIMEOUT
    )
    assert wider.tolerance == pytest.approx(0.5 * spread)
    floored = await estimate_tolerance(
        target, records, OutputContract(), floor=0.05, timeout_s=TIMEOUT
    )
    assert floored.tolerance == 0.05  # 0.05 > 0.1 x 0.2236


async def test_tolerance_floor_and_deterministic_targets() -> None:
    target = CountingTarget(deterministic=True)
    estimate = await estimate_tolerance(
        target, [{"summary": "a"}], OutputContract(), floor=0.07, timeout_s=TIMEOUT
    )
    assert estimate.noise_std == 0.0 and estimate.tolerance == 0.07
    assert len(target.calls) == 1


async def test_tolerance_skips_and_counts_failures() -> None:
    def values(text: str, repeat: int) -> float:
        return math.nan if text == "bad" else [0.4, 0.6, 0.5][repeat]

    target = CountingTarget(values=values)
    records = [{"summary": "good"}, {"summary": "bad"}]
    estimate = await estimate_tolerance(target, records, OutputContract(), timeout_s=TIMEOUT)
    assert (estimate.samples, estimate.errors) == (1, 1)
    assert estimate.tolerance == pytest.approx(0.2)


async def test_tolerance_without_records_raises() -> None:
    with pytest.raises(ScorerError, match="no records"):
        await estimate_tolerance(CountingTarget(), [], OutputContract(), timeout_s=TIMEOUT)


async def test_tolerance_all_failed_raises() -> None:
    target = CountingTarget(values=lambda text, repeat: math.nan)
    with pytest.raises(ScorerError, match="all 2 tolerance samples failed"):
        await estimate_tolerance(
            target, [{"summary": "a"}, {"summary": "b"}], OutputContract(), timeout_s=TIMEOUT
        )
