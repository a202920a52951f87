"""`repeatable`: the same text, scored again, gets the same score."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from sane._record import Record
from sane.relations._kind import (
    EPS,
    RelationKind,
    RelationResult,
    Scores,
    error,
    register,
    unchanged,
    verdict,
)
from sane.requirements import Requirement


class RepeatableRelation(Record):
    """Spread of k repeated scores of one variant stays within tolerance."""

    kind: Literal["repeatable"] = "repeatable"
    variant: str = "original"
    repeats: int = Field(default=3, ge=2)

    def roles(self) -> list[str]:
        return [self.variant]

    def must_differ(self) -> list[tuple[str, str]]:
        """Pairs of roles whose texts must differ for the relation to test anything."""
        return []  # one text, scored as it is


def _repeatable(
    relation: RepeatableRelation, scores: Scores, tol: float, _hib: bool
) -> RelationResult:
    values = scores[relation.variant]
    if len(values) < 2:
        return error(
            f"role '{relation.variant}' has {len(values)} repeat(s); repeatable needs at least 2"
        )
    spread = max(values) - min(values)
    ok = spread <= tol + EPS
    shown = ", ".join(f"{v:.2f}" for v in values)
    return verdict(
        ok,
        f"{relation.variant} repeats [{shown}]: spread {spread:.2f} "
        f"{'<=' if ok else '>'} tol {tol:.2f}",
    )


register(
    RelationKind(
        name="repeatable",
        record=RepeatableRelation,
        check=_repeatable,
        mirror=unchanged,
        change=None,  # no perturbation: the repeats are the relation itself
        paired=None,
        directions=None,
        home=Requirement.repeatability,
        requirements=frozenset({Requirement.repeatability}),
        changes_score=False,
        mirror_contradicts=False,
        formula="spread of {repeats} scores of {variant} <= tol",
        predicts=lambda r, gets: (
            f'scoring the "{r.variant}" text {r.repeats} times gives the same score each time'
        ),
        example='{"kind": "repeatable", "variant": "original", "repeats": 3}',
        meaning="scoring the same text repeatedly gives the same score.",
        repeats=lambda r: r.repeats,
    )
)
