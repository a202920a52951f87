"""`at_level`: one variant's score lies in a band of the output range."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from sane._record import Record
from sane.relations._kind import (
    EPS,
    RelationKind,
    RelationResult,
    Scores,
    mean,
    register,
    verdict,
)
from sane.requirements import Requirement


class AtLevelRelation(Record):
    """One variant's normalised score lies in [low, high] (0 = contract min, 1 = max)."""

    kind: Literal["at_level"] = "at_level"
    variant: str = "original"
    low: float = Field(default=0.0, ge=0.0, le=1.0)
    high: float = Field(default=1.0, ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _band_is_proper(self) -> AtLevelRelation:
        if self.low > self.high:
            raise ValueError("low must not exceed high")
        return self

    def roles(self) -> list[str]:
        return [self.variant]

    def must_differ(self) -> list[tuple[str, str]]:
        """Pairs of roles whose texts must differ for the relation to test anything."""
        return []  # one text, scored as it is


def _at_level(relation: AtLevelRelation, scores: Scores, tol: float, _hib: bool) -> RelationResult:
    s = mean(scores[relation.variant])
    ok = relation.low - tol - EPS <= s <= relation.high + tol + EPS
    return verdict(
        ok,
        f"{relation.variant} {s:.2f} {'inside' if ok else 'outside'} "
        f"[{relation.low:.2f}, {relation.high:.2f}] +/- tol {tol:.2f}",
    )


def _mirrored(relation: AtLevelRelation) -> AtLevelRelation:
    """The band seen from the other end of the range, rounded to the digits a band is written
    with: ``1 - 0.7`` is 0.30000000000000004 in floating point, and a prompt that showed that
    would set a mirror control apart from every band a recipe writes (a reader noticed)."""
    return relation.model_copy(
        update={"low": round(1.0 - relation.high, 9), "high": round(1.0 - relation.low, 9)}
    )


def _percent(value: float) -> int:
    return round(value * 100)


register(
    RelationKind(
        name="at_level",
        record=AtLevelRelation,
        check=_at_level,
        mirror=_mirrored,
        change=None,  # one variant, no perturbation
        paired=None,
        directions=None,
        home=Requirement.calibration,
        requirements=frozenset({Requirement.calibration}),
        changes_score=False,
        mirror_contradicts=True,
        formula="normalised s({variant}) in [{low}, {high}]",
        predicts=lambda r, gets: (
            f'the "{r.variant}" text scores between {_percent(r.low)}% and '
            f"{_percent(r.high)}% of the score range"
        ),
        example='{"kind": "at_level", "variant": "original", "low": 0.0, "high": 0.3}',
        meaning="the score lies in that band of the output range (0 = minimum, 1 = maximum).",
    )
)
