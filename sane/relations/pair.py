"""The five pair kinds: how a perturbed variant's score moves against the original's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from sane._record import Record
from sane.relations._kind import (
    EPS,
    Alternative,
    RelationKind,
    RelationResult,
    Scores,
    mean,
    register,
    verdict,
)
from sane.requirements import Requirement


class PairRelation(Record):
    """decrease / increase / no_increase / no_decrease / invariant between two variants."""

    kind: Literal["decrease", "increase", "no_increase", "no_decrease", "invariant"]
    original: str = "original"
    perturbed: str = "perturbed"

    def roles(self) -> list[str]:
        return [self.original, self.perturbed]

    def must_differ(self) -> list[tuple[str, str]]:
        """Pairs of roles whose texts must differ for the relation to test anything."""
        return [(self.original, self.perturbed)]


def _scores(relation: PairRelation, scores: Scores) -> tuple[float, float, str]:
    s0, s1 = mean(scores[relation.original]), mean(scores[relation.perturbed])
    return s0, s1, f"{relation.perturbed} {s1:.2f} vs {relation.original} {s0:.2f}"


def _checker(
    word: str, change: Callable[[float, float], float], *, strict: bool
) -> Callable[[PairRelation, Scores, float, bool], RelationResult]:
    """A pair check on `change(s0, s1)`: above the tolerance (`strict`), or within it."""

    def check(relation: PairRelation, scores: Scores, tol: float, _hib: bool) -> RelationResult:
        s0, s1, head = _scores(relation, scores)
        amount = change(s0, s1)
        passed = amount > tol + EPS if strict else amount <= tol + EPS
        sign = (">" if passed else "<=") if strict else ("<=" if passed else ">")
        return verdict(passed, f"{head}: {word} {amount:.2f} {sign} tol {tol:.2f}")

    return check


def _mirrored(kind: str) -> Callable[[PairRelation], PairRelation]:
    return lambda relation: relation.model_copy(update={"kind": kind})


def _change(relation: PairRelation) -> tuple[str, str]:
    return relation.original, relation.perturbed


def _pair_kind(
    name: str,
    check: Callable[[PairRelation, Scores, float, bool], RelationResult],
    mirror: str,
    paired: tuple[Alternative, bool],
    directions: set[str],
    home: Requirement,
    requirements: set[Requirement],
    changes_score: bool,
    formula: str,
    claim: str,
    example: str,
    meaning: str,
) -> RelationKind:
    return register(
        RelationKind(
            name=name,
            record=PairRelation,
            check=check,
            mirror=_mirrored(mirror),
            change=_change,
            paired=paired,
            directions=frozenset(directions),
            home=home,
            requirements=frozenset(requirements),
            changes_score=changes_score,
            # only a strict direction is contradicted by its mirror
            mirror_contradicts=changes_score,
            formula=formula,
            predicts=lambda r, gets: claim.format(p=r.perturbed, o=r.original, gets=gets),
            example=example,
            meaning=meaning,
        )
    )


def _example(kind: str) -> str:
    return f'{{"kind": "{kind}", "original": "original", "perturbed": "perturbed"}}'


_pair_kind(
    "decrease",
    _checker("dropped", lambda s0, s1: s0 - s1, strict=True),
    mirror="increase",
    paired=("less", True),
    directions={"lower"},
    home=Requirement.monotonicity,
    requirements={Requirement.monotonicity},
    changes_score=True,
    formula="s({perturbed}) < s({original}) - tol",
    claim='the "{p}" text {gets} a LOWER score than the "{o}" text',
    example=_example("decrease"),
    meaning="the perturbed text's score is lower than the original's by more than noise.",
)
_pair_kind(
    "increase",
    _checker("rose", lambda s0, s1: s1 - s0, strict=True),
    mirror="decrease",
    paired=("greater", True),
    directions={"higher"},
    home=Requirement.monotonicity,
    requirements={Requirement.monotonicity},
    changes_score=True,
    formula="s({perturbed}) > s({original}) + tol",
    claim='the "{p}" text {gets} a HIGHER score than the "{o}" text',
    example=_example("increase"),
    meaning="the perturbed score is higher by more than noise.",
)
_pair_kind(
    "no_increase",
    _checker("rose", lambda s0, s1: s1 - s0, strict=False),
    mirror="no_decrease",
    paired=("greater", False),
    directions={"lower", "same"},
    home=Requirement.monotonicity,
    requirements={Requirement.monotonicity, Requirement.robustness},
    changes_score=False,
    formula="s({perturbed}) <= s({original}) + tol",
    claim='the "{p}" text {gets} a score that is NOT HIGHER than the "{o}" text\'s',
    example=_example("no_increase") + ' / {"kind": "no_decrease", ...}',
    meaning="the perturbed score is not higher / not lower beyond noise.",
)
_pair_kind(
    "no_decrease",
    _checker("dropped", lambda s0, s1: s0 - s1, strict=False),
    mirror="no_increase",
    paired=("less", False),
    directions={"higher", "same"},
    home=Requirement.monotonicity,
    requirements={Requirement.monotonicity, Requirement.robustness},
    changes_score=False,
    formula="s({perturbed}) >= s({original}) - tol",
    claim='the "{p}" text {gets} a score that is NOT LOWER than the "{o}" text\'s',
    example="",  # told to the recipe agent with no_increase, on one line
    meaning="",
)
_pair_kind(
    "invariant",
    _checker("moved", lambda s0, s1: abs(s1 - s0), strict=False),
    mirror="invariant",
    paired=("two-sided", False),
    directions={"same"},
    home=Requirement.robustness,
    requirements={Requirement.robustness},
    changes_score=False,
    formula="|s({perturbed}) - s({original})| <= tol",
    claim='the "{p}" text {gets} the SAME score as the "{o}" text',
    example=_example("invariant"),
    meaning="the two scores are equal within noise.",
)
