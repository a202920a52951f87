"""Run a target on a case's variants and check the case's relation.

This is where a scorer's misbehaviour becomes data: every score is checked
(a number, finite, inside the target's contract) before it is used, and any
failure - an exception, a timeout, a non-number - becomes a ScorerError with a
one-line cause and, at the case level, a verdict of error. A broken scorer is
never scored as passing or faulting.
"""

from __future__ import annotations

import asyncio
import math
import numbers
import statistics
from typing import Any

from pydantic import BaseModel, ConfigDict

from sane._turns import Turns
from sane.errors import BudgetExceeded, LLMError, ScorerError
from sane.llm import capture_transcripts, timed_call
from sane.records import (
    Case,
    ExecutionRecord,
    OutputContract,
    Recipe,
    ScorerSpec,
    Verdict,
    relation_roles,
)
from sane.relations import kind_of, tolerance_for
from sane.scorers.base import Target


class ToleranceEstimate(BaseModel):
    """A target's noise tolerance and the measurement behind it."""

    model_config = ConfigDict(extra="forbid")

    tolerance: float
    noise_std: float
    floor: float
    samples: int
    errors: int = 0
    # the standard deviation of the target's normalised scores over the sampled records, and
    # the share of it the tolerance is at least (sane.relations.tolerance_for); 0 in a suite
    # executed before the spread counted
    spread: float = 0.0
    spread_share: float = 0.0
    # the median of those scores: where the target sits when nothing is changed, the level a
    # scorer that never moves from it would answer every variant with (sane.relations.
    # discriminates; None in a suite executed before it was measured)
    level: float | None = None


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _checked(target: Target, role: str, value: Any) -> float:
    """The value as a float, or a ScorerError saying why it is unusable."""
    where = f"target {target.name} on role {role}"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ScorerError(f"{where}: returned a non-number {_one_line(repr(value))[:80]}")
    number = float(value)
    if not math.isfinite(number):
        raise ScorerError(f"{where}: returned a non-finite score {number}")
    contract = target.contract
    if not contract.contains(number):
        raise ScorerError(
            f"{where}: score {number:g} outside its contract [{contract.min:g}, {contract.max:g}]"
        )
    return number


SCORER_TURNS = Turns()  # calls of targets on a one-at-a-time resource (Target.serial_key)


async def _warm(target: Target) -> None:
    """Load what the target's calls need before the first is timed: a target with a `warm()`
    coroutine (an embedded metric loads its model there, tens of seconds on a loaded
    machine) is warmed first, untimed, so a loading is never a call's timeout."""
    warm = getattr(target, "warm", None)
    if warm is not None:
        await warm()


async def _guarded(target: Target, role: str, call: Any, timeout_s: float) -> Any:
    """Await one scorer call under a timeout; every failure is a one-line ScorerError.

    A target on a one-at-a-time resource waits for its turn first, and a target is warmed
    (`_warm`) before the timeout starts: the timeout is the call's own, not the queue's
    (on a slow machine the queue for an embedded judge is minutes long) nor the loading's.
    A model call inside stops the clock while it waits for its turn to be sent
    (sane.llm.timed_call)."""
    where = f"target {target.name} on role {role}"
    async with SCORER_TURNS.of(getattr(target, "serial_key", None)):
        clock = None
        try:
            try:
                await _warm(target)
            except BaseException:
                call.close()  # never started: closed, not left to warn that it was not awaited
                raise
            async with timed_call(timeout_s) as clock:
                return await call
        except TimeoutError as exc:
            waited = clock.describe() if clock is not None else ""
            raise ScorerError(f"{where}: timed out after {timeout_s:g}s{waited}") from exc
        except ScorerError as exc:
            raise ScorerError(f"{where}: {_one_line(str(exc))}") from exc
        except BudgetExceeded:
            raise  # a budget stop ends the run (resumable); it is not this scorer's failure
        except Exception as exc:  # the scorer's own failure, whatever it is
            raise ScorerError(
                f"{where}: raised {type(exc).__name__}: {_one_line(str(exc))}"
            ) from exc


def _check_fields(target: Target, role: str, record: dict[str, str]) -> None:
    missing = [f for f in target.fields if f not in record]
    if missing:
        raise ScorerError(f"target {target.name} on role {role}: record lacks fields {missing}")


async def _score_batch(
    target: Any, records: dict[str, dict[str, str]], timeout_s: float
) -> dict[str, float]:
    roles = list(records)
    label = ",".join(roles)
    values = await _guarded(
        target, label, target.score_batch([records[r] for r in roles]), timeout_s * len(roles)
    )
    if not isinstance(values, list | tuple) or len(values) != len(roles):
        raise ScorerError(
            f"target {target.name} on roles {label}: score_batch returned "
            f"{_one_line(repr(values))[:80]} for {len(roles)} records"
        )
    return {role: _checked(target, role, v) for role, v in zip(roles, values, strict=True)}


async def _transcribed(
    target: Target, role: str, repeat: int, record: dict[str, str], timeout_s: float
) -> tuple[Any, list[str]]:
    """One score, with the keys of the model calls it made (sane.llm transcripts)."""
    with capture_transcripts() as keys:
        value = await _guarded(target, role, target.score(record, repeat), timeout_s)
    return value, keys


async def _score_each(
    target: Target,
    records: dict[str, dict[str, str]],
    repeats: int,
    timeout_s: float,
    transcripts: dict[str, list[str]] | None = None,
) -> dict[str, list[float]]:
    jobs = [(role, i) for role in records for i in range(repeats)]
    results = await asyncio.gather(
        *(_transcribed(target, role, i, records[role], timeout_s) for role, i in jobs),
        return_exceptions=True,
    )
    scores: dict[str, list[float]] = {role: [] for role in records}
    for (role, _), result in zip(jobs, results, strict=True):
        if isinstance(result, BaseException):
            raise result
        value, keys = result
        scores[role].append(_checked(target, role, value))
        if transcripts is not None and keys:
            transcripts.setdefault(role, []).extend(keys)
    return scores


async def score_variants(
    target: Target,
    records: dict[str, dict[str, str]],
    repeats: int,
    timeout_s: float,
    transcripts: dict[str, list[str]] | None = None,
) -> dict[str, list[float]]:
    """Score each role's record `repeats` times; any unusable score raises ScorerError.

    A deterministic target is scored once per role and its value repeated; a
    target with `score_batch` is batched when that loses no repeats. ``transcripts``,
    when given, receives per role the keys of the model calls its scores came from.
    """
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    for role, record in records.items():
        _check_fields(target, role, record)
    once = target.deterministic or repeats == 1
    if once and hasattr(target, "score_batch") and records:
        values = await _score_batch(target, records, timeout_s)
        return {role: [value] * repeats for role, value in values.items()}
    if target.deterministic:
        single = await _score_each(target, records, 1, timeout_s, transcripts)
        return {role: values * repeats for role, values in single.items()}
    return await _score_each(target, records, repeats, timeout_s, transcripts)


async def score_once(
    target: Target, record: dict[str, str], repeat: int, timeout_s: float, role: str = "record"
) -> float:
    """One checked score of one record at repeat index `repeat` (a judge samples each index
    once: the comparison audit asks the same pair again at index 1 to see it change)."""
    _check_fields(target, role, record)
    value = await _guarded(target, role, target.score(record, repeat), timeout_s)
    return _checked(target, role, value)


def normalise(raw: float, target_contract: OutputContract, spec_contract: OutputContract) -> float:
    """A raw score on [0, 1], read in the spec's direction (flipped if the target's differs)."""
    value = min(1.0, max(0.0, target_contract.normalise(raw)))
    if target_contract.higher_is_better != spec_contract.higher_is_better:
        value = 1.0 - value
    return value


async def estimate_tolerance(
    target: Target,
    records: list[dict[str, str]],
    spec_contract: OutputContract,
    *,
    repeats: int = 3,
    floor: float = 0.0,
    spread_share: float = 0.1,
    timeout_s: float,
) -> ToleranceEstimate:
    """Tolerance = max(floor, spread_share * the std of the records' mean normalised
    scores, NOISE_K * pooled std of normalised repeat scores) (`sane.relations.tolerance_for`).

    Records whose scoring fails are skipped and counted; if every one fails the
    target cannot be measured and a ScorerError is raised. A deterministic
    target is scored once per record (to show it works) and has no noise.
    """
    if not records:
        raise ScorerError(f"target {target.name}: no records to estimate its tolerance from")
    runs = 1 if target.deterministic else repeats
    if runs < 2 and not target.deterministic:
        raise ValueError(f"estimating noise needs at least 2 repeats, got {repeats}")
    results = await asyncio.gather(
        *(
            score_variants(target, {f"sample {i}": record}, runs, timeout_s)
            for i, record in enumerate(records)
        ),
        return_exceptions=True,
    )
    variances: list[float] = []
    means: list[float] = []
    failures: list[BaseException] = []
    for result in results:
        if isinstance(result, ScorerError | LLMError):
            failures.append(result)
            continue
        if isinstance(result, BaseException):
            raise result
        (values,) = result.values()
        normed = [normalise(v, target.contract, spec_contract) for v in values]
        variances.append(statistics.variance(normed) if len(normed) > 1 else 0.0)
        means.append(statistics.fmean(normed))
    if not variances:
        raise ScorerError(
            f"target {target.name}: all {len(records)} tolerance samples failed; "
            f"first: {_one_line(str(failures[0]))}"
        )
    noise = math.sqrt(math.fsum(variances) / len(variances))
    spread = statistics.pstdev(means)
    return ToleranceEstimate(
        tolerance=tolerance_for(noise, floor, spread, spread_share),
        noise_std=noise,
        floor=floor,
        samples=len(variances),
        errors=len(failures),
        spread=spread,
        spread_share=spread_share,
        level=statistics.median(means),
    )


def variant_records(spec: ScorerSpec, case: Case, roles: list[str]) -> dict[str, dict[str, str]]:
    missing = [role for role in roles if role not in case.variants]
    if missing:
        raise ScorerError(f"case {case.id} lacks variant role(s) {missing}")
    return {role: {**case.example, spec.scored_field: case.variants[role]} for role in roles}


def repeats_of(recipe: Recipe, repeats: int) -> int:
    """How many times each variant is scored: what the relation kind says where it says
    (repeatability), else the execution's `repeats`."""
    own = kind_of(recipe.relation).repeats
    return own(recipe.relation) if own is not None else repeats


def _error_record(
    target: Target, recipe: Recipe, case: Case, tolerance: float, error: str
) -> ExecutionRecord:
    return ExecutionRecord(
        target=target.name,
        case_id=case.id,
        recipe_id=recipe.id,
        scores={},
        tolerance=tolerance,
        verdict=Verdict.error,
        error=_one_line(error),
    )


def verdict_record(
    target: Target,
    spec: ScorerSpec,
    recipe: Recipe,
    case: Case,
    tolerance: float,
    raw: dict[str, list[float]],
    transcripts: dict[str, list[str]] | None = None,
) -> ExecutionRecord:
    """Normalise a case's checked raw scores and check the recipe's relation on them."""
    normalised: dict[str, list[float | None]] = {
        role: [normalise(v, target.contract, spec.output) for v in values]
        for role, values in raw.items()
    }
    unchecked = ExecutionRecord(
        target=target.name,
        case_id=case.id,
        recipe_id=recipe.id,
        scores=dict(raw),
        normalised=normalised,
        tolerance=tolerance,
        verdict=Verdict.error,
        transcripts=transcripts or {},
    )
    return unchecked.checked_under(recipe.relation, tolerance, spec.output.higher_is_better)


async def run_case(
    target: Target,
    spec: ScorerSpec,
    recipe: Recipe,
    case: Case,
    tolerance: float,
    *,
    repeats: int = 1,
    timeout_s: float,
) -> ExecutionRecord:
    """Score a case's variants with `target` and check the recipe's relation."""
    if case.error:
        error = f"case {case.id} was not generated: {case.error}"
        return _error_record(target, recipe, case, tolerance, error)
    try:
        records = variant_records(spec, case, relation_roles(recipe.relation))
        transcripts: dict[str, list[str]] = {}
        raw = await score_variants(
            target, records, repeats_of(recipe, repeats), timeout_s, transcripts
        )
    except (ScorerError, LLMError) as exc:
        return _error_record(target, recipe, case, tolerance, str(exc))
    return verdict_record(target, spec, recipe, case, tolerance, raw, transcripts)


def batchable(target: Target, recipe: Recipe, case: Case, repeats: int) -> bool:
    """Whether a case can join a cross-case batch: the target has score_batch and one
    score per variant loses nothing (deterministic, or a single repeat)."""
    once = target.deterministic or repeats_of(recipe, repeats) == 1
    return hasattr(target, "score_batch") and once and not case.error


async def run_case_batch(
    target: Target,
    spec: ScorerSpec,
    items: list[tuple[Recipe, Case]],
    tolerance: float,
    *,
    repeats: int = 1,
    timeout_s: float,
) -> list[ExecutionRecord]:
    """Score the variants of many cases in one `score_batch` call, then check each relation.

    Local metrics encode lists far faster than single texts, so this is how a
    batch-capable target runs a suite. An unusable score is an error of the case
    it belongs to; a batch that fails as a whole is retried case by case, so every
    error lands on the case that caused it and the other cases still get verdicts.
    """
    records: dict[int, ExecutionRecord] = {}
    prepared: list[tuple[int, dict[str, dict[str, str]]]] = []
    for i, (recipe, case) in enumerate(items):
        try:
            variants = variant_records(spec, case, relation_roles(recipe.relation))
            for role, record in variants.items():
                _check_fields(target, role, record)
        except ScorerError as exc:
            records[i] = _error_record(target, recipe, case, tolerance, str(exc))
            continue
        prepared.append((i, variants))
    flat = [(i, role, record) for i, variants in prepared for role, record in variants.items()]
    try:
        values = await _guarded(
            target,
            f"a batch of {len(flat)}",
            target.score_batch([record for _, _, record in flat]),  # type: ignore[attr-defined]
            timeout_s * max(1, len(flat)),
        )
        if not isinstance(values, list | tuple) or len(values) != len(flat):
            raise ScorerError(
                f"target {target.name}: score_batch returned "
                f"{_one_line(repr(values))[:80]} for {len(flat)} records"
            )
    except ScorerError:
        singles = await asyncio.gather(
            *(
                run_case(target, spec, *items[i], tolerance, repeats=repeats, timeout_s=timeout_s)
                for i, _ in prepared
            )
        )
        records.update({i: record for (i, _), record in zip(prepared, singles, strict=True)})
        return [records[i] for i in range(len(items))]
    raw: dict[int, dict[str, list[float]]] = {i: {} for i, _ in prepared}
    errors: dict[int, str] = {}
    for (i, role, _), value in zip(flat, values, strict=True):
        try:
            raw[i][role] = [_checked(target, role, value)] * repeats_of(items[i][0], repeats)
        except ScorerError as exc:
            errors.setdefault(i, str(exc))
    for i, _ in prepared:
        recipe, case = items[i]
        records[i] = (
            _error_record(target, recipe, case, tolerance, errors[i])
            if i in errors
            else verdict_record(target, spec, recipe, case, tolerance, raw[i])
        )
    return [records[i] for i in range(len(items))]
