"""A relation kind `example_not_below`: the perturbed text scores at least `floor`."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from sane.relations import RelationKind, RelationResult, Scores, register_relation, unchanged
from sane.relations import verdict as relation_verdict
from sane.requirements import Requirement


class NotBelow(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["example_not_below"] = "example_not_below"
    perturbed: str = "perturbed"
    floor: float = 0.5

    def roles(self) -> list[str]:
        return [self.perturbed]

    def must_differ(self) -> list[tuple[str, str]]:
        return []


def _check(relation: NotBelow, scores: Scores, tol: float, _hib: bool) -> RelationResult:
    value = scores[relation.perturbed][0]
    return relation_verdict(value >= relation.floor - tol, f"{value:.2f} vs floor {relation.floor}")


register_relation(
    RelationKind(
        name="example_not_below",
        record=NotBelow,
        check=_check,
        mirror=unchanged,
        change=None,
        paired=None,
        directions=None,
        home=Requirement.monotonicity,
        requirements=frozenset({Requirement.monotonicity}),
        changes_score=False,
        mirror_contradicts=False,
        formula="{perturbed} >= {floor}",
        predicts=lambda r, gets: f'the "{r.perturbed}" text scores at least {r.floor}',
        example='{"kind": "example_not_below", "perturbed": "perturbed", "floor": 0.5}',
        meaning="the perturbed text keeps at least a floor score.",
    )
)
