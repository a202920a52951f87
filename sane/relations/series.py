"""Kinds on a graded series of variants: `ordered` (scored in order) and `spans` (a range)."""

from __future__ import annotations

from itertools import combinations
from typing import Literal

from pydantic import Field

from sane._record import Record
from sane.relations._kind import (
    EPS,
    RelationKind,
    RelationResult,
    Scores,
    mean,
    register,
    unchanged,
    verdict,
)
from sane.requirements import Requirement


def _all_pairs(series: list[str]) -> list[tuple[str, str]]:
    return [(x, y) for i, x in enumerate(series) for y in series[i + 1 :]]


class OrderedRelation(Record):
    """A graded series, listed from the lowest to the highest target level."""

    kind: Literal["ordered"] = "ordered"
    series: list[str] = Field(min_length=2)
    min_accuracy: float = Field(default=1.0, ge=0.0, le=1.0)

    def roles(self) -> list[str]:
        return list(self.series)

    def must_differ(self) -> list[tuple[str, str]]:
        """Pairs of roles whose texts must differ for the relation to test anything."""
        return _all_pairs(self.series)


class SpansRelation(Record):
    """A graded series must cover at least `min_fraction` of the output range."""

    kind: Literal["spans"] = "spans"
    series: list[str] = Field(min_length=2)
    min_fraction: float = Field(default=0.5, gt=0.0, le=1.0)

    def roles(self) -> list[str]:
        return list(self.series)

    def must_differ(self) -> list[tuple[str, str]]:
        """Pairs of roles whose texts must differ for the relation to test anything."""
        return _all_pairs(self.series)


def _ordered(relation: OrderedRelation, scores: Scores, tol: float, _hib: bool) -> RelationResult:
    means = [(role, mean(scores[role])) for role in relation.series]
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
    return verdict(ok, detail)


def _spans(relation: SpansRelation, scores: Scores, tol: float, _hib: bool) -> RelationResult:
    means = [(role, mean(scores[role])) for role in relation.series]
    values = [value for _, value in means]
    covered = max(values) - min(values)
    ok = covered >= relation.min_fraction - EPS
    shown = ", ".join(f"{role} {value:.2f}" for role, value in means)
    return verdict(
        ok,
        f"series [{shown}]: covers {covered:.2f} of the range "
        f"{'>=' if ok else '<'} min {relation.min_fraction:.2f}",
    )


def _ends(relation: OrderedRelation | SpansRelation) -> tuple[str, str]:
    """Highest level against lowest level: the change a series measures."""
    return relation.series[0], relation.series[-1]


register(
    RelationKind(
        name="ordered",
        record=OrderedRelation,
        check=_ordered,
        mirror=lambda r: r.model_copy(update={"series": list(reversed(r.series))}),
        change=_ends,
        paired=None,
        directions=None,
        home=Requirement.calibration,
        requirements=frozenset({Requirement.dynamic_range, Requirement.calibration}),
        changes_score=True,
        mirror_contradicts=True,
        formula="scores non-decreasing along {series} (pairwise accuracy >= {min_accuracy})",
        predicts=lambda r, gets: f"the scores rise in this order: {' < '.join(r.series)}",
        example='{"kind": "ordered", "series": ["level_1", "level_2", "level_3"]}',
        meaning="a graded series listed from the lowest to the highest score is scored in "
        "that order.",
        series=lambda r: list(r.series),
    )
)
register(
    RelationKind(
        name="spans",
        record=SpansRelation,
        check=_spans,
        mirror=unchanged,  # a range covered has no direction
        change=_ends,
        paired=None,
        directions=None,
        home=Requirement.dynamic_range,
        requirements=frozenset({Requirement.dynamic_range}),
        changes_score=True,
        mirror_contradicts=False,
        formula="scores of {series} cover >= {min_fraction} of the output range",
        predicts=lambda r, gets: (
            f"the series {', '.join(r.series)} covers at least "
            f"{round(r.min_fraction * 100)}% of the score range"
        ),
        example='{"kind": "spans", "series": ["level_1", "level_2", "level_3"], '
        '"min_fraction": 0.5}',
        meaning="a graded series from worst to best covers at least that fraction of the "
        "output range.",
    )
)
