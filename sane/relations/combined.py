"""`combined`: subadditivity of two independent degradations A and B."""

from __future__ import annotations

from typing import Literal

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


class CombinedRelation(Record):
    """Subadditivity of two independent degradations A and B."""

    kind: Literal["combined"] = "combined"
    original: str = "original"
    a: str = "edit_a"
    b: str = "edit_b"
    both: str = "edit_ab"

    def roles(self) -> list[str]:
        return [self.original, self.a, self.b, self.both]

    def must_differ(self) -> list[tuple[str, str]]:
        """Pairs of roles whose texts must differ for the relation to test anything."""
        o, a, b, both = self.original, self.a, self.b, self.both
        return [(o, a), (o, b), (o, both), (a, both), (b, both)]


def _combined(
    relation: CombinedRelation, scores: Scores, tol: float, higher_is_better: bool
) -> RelationResult:
    def goodness(role: str) -> float:
        s = mean(scores[role])
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
    return verdict(floor_ok and sum_ok, detail)


register(
    RelationKind(
        name="combined",
        record=CombinedRelation,
        check=_combined,
        mirror=unchanged,  # same shape whatever the direction (read through `goodness`)
        change=lambda r: (r.original, r.both),  # both edits vs the original
        paired=None,
        directions=None,
        home=Requirement.subadditivity,
        requirements=frozenset({Requirement.subadditivity}),
        changes_score=True,
        mirror_contradicts=False,
        formula="s({both}) <= min(s({a}), s({b})) + tol and penalty({both}) <= "
        "penalty({a}) + penalty({b}) + tol",
        predicts=lambda r, gets: (
            f'applying both edits ("{r.both}") scores no better than either edit alone '
            f'("{r.a}", "{r.b}"), and its penalty is at most the sum of their penalties'
        ),
        example='{"kind": "combined", "original": "original", "a": "edit_a", "b": "edit_b", '
        '"both": "edit_ab"}',
        meaning="two independent degradations together score no better than either alone, "
        "and the combined penalty is at most the sum of the single penalties.",
    )
)
