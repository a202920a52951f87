"""Check an expected relation against a case's normalised scores.

Relations are data (DESIGN section 3): each kind has one small checker in a
registry, so adding a kind never touches an if-chain. Scores arrive already
normalised to [0, 1] in the spec's direction (0 = contract min, 1 = contract
max), one list of repeats per variant role. Every checker returns evidence a
person can read next to the verdict. Anything that cannot be checked honestly
(a missing role, an empty list, a None, NaN or infinite score) is an error,
never a pass.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from itertools import combinations
from typing import Any

from pydantic import BaseModel, ConfigDict

from sane.records import (
    AtLevelRelation,
    CombinedRelation,
    OrderedRelation,
    PairRelation,
    Relation,
    RepeatableRelation,
    SpansRelation,
    Verdict,
    relation_roles,
)

EPS = 1e-9
"""Slack for float comparisons: a difference exactly equal to the tolerance is within it."""

_RANGE_SLACK = 1e-6
"""How far outside [0, 1] a normalised score may stray (rounding) before it is refused."""

Scores = dict[str, list[float]]


class RelationResult(BaseModel):
    """The verdict of one relation check and the evidence behind it."""

    model_config = ConfigDict(extra="forbid")

    verdict: Verdict
    detail: str


Checker = Callable[[Any, Scores, float, bool], RelationResult]
CHECKERS: dict[str, Checker] = {}


def register_relation(*kinds: str) -> Callable[[Checker], Checker]:
    def decorator(checker: Checker) -> Checker:
        for kind in kinds:
            CHECKERS[kind] = checker
        return checker

    return decorator


def _verdict(ok: bool, detail: str) -> RelationResult:
    return RelationResult(verdict=Verdict.passed if ok else Verdict.fault, detail=detail)


def _error(detail: str) -> RelationResult:
    return RelationResult(verdict=Verdict.error, detail=detail)


def _mean(values: list[float]) -> float:
    return math.fsum(values) / len(values)


def _clean(relation: Relation, scores: dict[str, list[float | None]]) -> tuple[Scores, str | None]:
    """The scores of the roles the relation reads, or a reason they cannot be used."""
    clean: Scores = {}
    for role in relation_roles(relation):
        values = scores.get(role)
        if values is None:
            return {}, f"no scores for role '{role}'"
        if len(values) == 0:
            return {}, f"empty score list for role '{role}'"
        for value in values:
            if value is None:
                return {}, f"missing score (None) for role '{role}'"
            if isinstance(value, bool) or not isinstance(value, int | float):
                return {}, f"non-numeric score {value!r} for role '{role}'"
            if not math.isfinite(value):
                return {}, f"non-finite score {value} for role '{role}'"
            if not -_RANGE_SLACK <= value <= 1 + _RANGE_SLACK:
                return {}, f"score {value} for role '{role}' is not normalised to [0, 1]"
        clean[role] = [float(v) for v in values]
    return clean, None


def check_relation(
    relation: Relation,
    scores: dict[str, list[float | None]],
    tolerance: float,
    higher_is_better: bool,
) -> RelationResult:
    """Check `relation` on normalised scores (one list of repeats per role)."""
    if not (isinstance(tolerance, int | float) and math.isfinite(tolerance) and tolerance >= 0):
        return _error(f"invalid tolerance {tolerance!r}")
    checker = CHECKERS.get(relation.kind)
    if checker is None:
        return _error(f"no checker for relation kind '{relation.kind}'")
    clean, problem = _clean(relation, scores)
    if problem is not None:
        return _error(problem)
    return checker(relation, clean, float(tolerance), higher_is_better)


# ------------------------------------------------------------------ pair kinds


def _pair(relation: PairRelation, scores: Scores) -> tuple[float, float, str]:
    s0, s1 = _mean(scores[relation.original]), _mean(scores[relation.perturbed])
    head = f"{relation.perturbed} {s1:.2f} vs {relation.original} {s0:.2f}"
    return s0, s1, head


@register_relation("decrease")
def _decrease(relation: PairRelation, scores: Scores, tol: float, _hib: bool) -> RelationResult:
    s0, s1, head = _pair(relation, scores)
    drop = s0 - s1
    ok = drop > tol + EPS
    return _verdict(ok, f"{head}: dropped {drop:.2f} {'>' if ok else '<='} tol {tol:.2f}")


@register_relation("increase")
def _increase(relation: PairRelation, scores: Scores, tol: float, _hib: bool) -> RelationResult:
    s0, s1, head = _pair(relation, scores)
    rise = s1 - s0
    ok = rise > tol + EPS
    return _verdict(ok, f"{head}: rose {rise:.2f} {'>' if ok else '<='} tol {tol:.2f}")


@register_relation("no_increase")
def _no_increase(relation: PairRelation, scores: Scores, tol: float, _hib: bool) -> RelationResult:
    s0, s1, head = _pair(relation, scores)
    rise = s1 - s0
    ok = rise <= tol + EPS
    return _verdict(ok, f"{head}: rose {rise:.2f} {'<=' if ok else '>'} tol {tol:.2f}")


@register_relation("no_decrease")
def _no_decrease(relation: PairRelation, scores: Scores, tol: float, _hib: bool) -> RelationResult:
    s0, s1, head = _pair(relation, scores)
    drop = s0 - s1
    ok = drop <= tol + EPS
    return _verdict(ok, f"{head}: dropped {drop:.2f} {'<=' if ok else '>'} tol {tol:.2f}")


@register_relation("invariant")
def _invariant(relation: PairRelation, scores: Scores, tol: float, _hib: bool) -> RelationResult:
    s0, s1, head = _pair(relation, scores)
    moved = abs(s1 - s0)
    ok = moved <= tol + EPS
    return _verdict(ok, f"{head}: moved {moved:.2f} {'<=' if ok else '>'} tol {tol:.2f}")


# ---------------------------------------------------------------- other kinds


@register_relation("repeatable")
def _repeatable(
    relation: RepeatableRelation, scores: Scores, tol: float, _hib: bool
) -> RelationResult:
    values = scores[relation.variant]
    if len(values) < 2:
        return _error(
            f"role '{relation.variant}' has {len(values)} repeat(s); repeatable needs at least 2"
        )
    spread = max(values) - min(values)
    ok = spread <= tol + EPS
    shown = ", ".join(f"{v:.2f}" for v in values)
    return _verdict(
        ok,
        f"{relation.variant} repeats [{shown}]: spread {spread:.2f} "
        f"{'<=' if ok else '>'} tol {tol:.2f}",
    )


@register_relation("combined")
def _combined(
    relation: CombinedRelation, scores: Scores, tol: float, higher_is_better: bool
) -> RelationResult:
    def goodness(role: str) -> float:
        s = _mean(scores[role])
        return s if higher_is_better else 1.0 - s

    g0, ga, gb, gab = (
        goodness(relation.original),
        goodness(relation.a),
        goodness(relation.b),
        goodness(relation.both),
    )
    floor_ok = gab <= min(ga, gb) + tol + EPS
    penalty_ab, penalty_sum = g0 - gab, (g0 - ga) + (g0 - gb)
    sum_ok = penalty_ab <= penalty_sum + tol + EPS
    detail = (
        f"goodness {relation.original} {g0:.2f}, {relation.a} {ga:.2f}, "
        f"{relation.b} {gb:.2f}, {relation.both} {gab:.2f}; "
        f"{relation.both} {'<=' if floor_ok else '>'} min(a, b) {min(ga, gb):.2f} + tol; "
        f"combined penalty {penalty_ab:.2f} {'<=' if sum_ok else '>'} "
        f"sum of penalties {penalty_sum:.2f} + tol; tol {tol:.2f}"
    )
    return _verdict(floor_ok and sum_ok, detail)


@register_relation("ordered")
def _ordered(relation: OrderedRelation, scores: Scores, tol: float, _hib: bool) -> RelationResult:
    means = [(role, _mean(scores[role])) for role in relation.series]
    pairs = list(combinations(means, 2))
    inverted = [(lo, hi) for lo, hi in pairs if hi[1] < lo[1] - tol - EPS]
    accuracy = (len(pairs) - len(inverted)) / len(pairs)
    ok = accuracy >= relation.min_accuracy - EPS
    shown = ", ".join(f"{role} {value:.2f}" for role, value in means)
    detail = (
        f"series [{shown}]: pairwise accuracy {len(pairs) - len(inverted)}/{len(pairs)} "
        f"= {accuracy:.2f} {'>=' if ok else '<'} min {relation.min_accuracy:.2f}, tol {tol:.2f}"
    )
    if inverted:
        detail += "; inverted pairs: " + ", ".join(
            f"{lo[0]} {lo[1]:.2f} > {hi[0]} {hi[1]:.2f}" for lo, hi in inverted
        )
    return _verdict(ok, detail)


@register_relation("spans")
def _spans(relation: SpansRelation, scores: Scores, tol: float, _hib: bool) -> RelationResult:
    means = [(role, _mean(scores[role])) for role in relation.series]
    values = [value for _, value in means]
    covered = max(values) - min(values)
    ok = covered >= relation.min_fraction - EPS
    shown = ", ".join(f"{role} {value:.2f}" for role, value in means)
    return _verdict(
        ok,
        f"series [{shown}]: covers {covered:.2f} of the range "
        f"{'>=' if ok else '<'} min {relation.min_fraction:.2f}",
    )


@register_relation("at_level")
def _at_level(relation: AtLevelRelation, scores: Scores, tol: float, _hib: bool) -> RelationResult:
    s = _mean(scores[relation.variant])
    ok = relation.low - tol - EPS <= s <= relation.high + tol + EPS
    return _verdict(
        ok,
        f"{relation.variant} {s:.2f} {'inside' if ok else 'outside'} "
        f"[{relation.low:.2f}, {relation.high:.2f}] +/- tol {tol:.2f}",
    )


_MIRRORED_PAIR = {
    "decrease": "increase",
    "increase": "decrease",
    "no_increase": "no_decrease",
    "no_decrease": "no_increase",
    "invariant": "invariant",
}


# The direction of the "perturbed" score against the "original" one that each pair kind
# allows, in the words of the blind panel's question (sane.validators.ballots).
DIRECTIONS: dict[str, frozenset[str]] = {
    "decrease": frozenset({"lower"}),
    "increase": frozenset({"higher"}),
    "invariant": frozenset({"same"}),
    "no_increase": frozenset({"lower", "same"}),
    "no_decrease": frozenset({"higher", "same"}),
}


def mirror(relation: Relation) -> Relation:
    """The relation with its direction flipped (the same relation when it has none).

    Used for a lower-is-better output contract (fixed recipe sets are written for
    higher-is-better) and for the panel's mirror controls.
    """
    if isinstance(relation, PairRelation):
        return relation.model_copy(update={"kind": _MIRRORED_PAIR[relation.kind]})
    if isinstance(relation, OrderedRelation):
        return relation.model_copy(update={"series": list(reversed(relation.series))})
    if isinstance(relation, AtLevelRelation):
        return relation.model_copy(update={"low": 1.0 - relation.high, "high": 1.0 - relation.low})
    return relation  # repeatable, combined (same shape), spans: direction-free
