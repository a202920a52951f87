"""Stability and sensitivity of one target (behavioral-correctness paper, section 3.4).

``stability = mean max(0, 1 - |s_t - s_0| / (s_0 + eps))`` over invariance cases and
``sensitivity = mean max(0, s_0 - s_t) / (s_0 + eps)`` over degradation cases, on scores
normalised to [0, 1] and oriented so that higher means better on the criterion.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from statistics import fmean
from typing import Any

from sane.records import ExecutionRecord, OutputContract, Recipe, Verdict
from sane.relations import kind_of
from sane.stats._base import StatsModel


class StabilitySensitivity(StatsModel):
    """Behavioral-correctness summary of one target (paper section 3.4).

    Scores are normalised to [0, 1] and oriented so that higher means better on the
    criterion ("goodness"). ``None`` when the target has no usable case of that kind.
    """

    stability: float | None = None
    stability_cases: int = 0
    sensitivity: float | None = None
    sensitivity_cases: int = 0
    eps: float = 1e-6


def stability_score(original: float, perturbed: float, eps: float = 1e-6) -> float:
    """``max(0, 1 - |s_t - s_0| / (s_0 + eps))`` for one invariance case."""
    return max(0.0, 1.0 - abs(perturbed - original) / (original + eps))


def sensitivity_score(original: float, perturbed: float, eps: float = 1e-6) -> float:
    """``max(0, s_0 - s_t) / (s_0 + eps)`` for one degradation case."""
    return max(0.0, original - perturbed) / (original + eps)


def is_degradation(relation: Any, *, criterion_higher_is_better: bool) -> bool:
    """A relation whose only allowed direction is the input getting worse on the criterion
    (its kind's change and blind-panel directions: sane.relations).

    Relation kinds are about raw scores, so for a lower-is-better criterion (toxicity) a
    degradation is an expected rise.
    """
    worse = "lower" if criterion_higher_is_better else "higher"
    return _directions(relation) == {worse}


def is_invariance(relation: Any) -> bool:
    """A relation whose only allowed direction is "same" between its change's two roles."""
    return _directions(relation) == {"same"}


def _directions(relation: Any) -> frozenset[str] | None:
    kind = kind_of(relation)
    return kind.directions if kind.change is not None else None


def goodness_pair(
    execution: ExecutionRecord, relation: Any, contract: OutputContract
) -> tuple[float, float] | None:
    """(original, perturbed) normalised goodness of one execution; None if unusable.

    Repeats are averaged; ``None`` repeats are ignored. Uses the record's ``normalised``
    scores when present, otherwise normalises the raw scores with ``contract``.
    """
    pair = []
    change = kind_of(relation).change
    if change is None:
        return None
    for role in change(relation):
        normalised = [v for v in execution.normalised.get(role, []) if v is not None]
        if not normalised:
            raw = [v for v in execution.scores.get(role, []) if v is not None]
            normalised = [contract.normalise(v) for v in raw]
        if not normalised:
            return None
        value = fmean(normalised)
        pair.append(value if contract.higher_is_better else 1.0 - value)
    return pair[0], pair[1]


def stability_sensitivity(
    executions: Iterable[ExecutionRecord],
    recipes: Mapping[str, Recipe],
    contract: OutputContract,
    *,
    criterion_higher_is_better: bool | None = None,
    eps: float = 1e-6,
) -> StabilitySensitivity:
    """Stability over invariance cases and sensitivity over degradation cases of one target.

    Only executions with a pass or fault verdict count (an error has no trustworthy
    scores). ``contract`` is the target's output contract; ``criterion_higher_is_better``
    is the direction the recipes' relations were written in (defaults to the contract's).
    """
    direction = criterion_higher_is_better
    if direction is None:
        direction = contract.higher_is_better
    stab: list[float] = []
    sens: list[float] = []
    for execution in executions:
        recipe = recipes.get(execution.recipe_id)
        if recipe is None or execution.verdict is Verdict.error:
            continue
        relation = recipe.relation
        invariance = is_invariance(relation)
        degradation = is_degradation(relation, criterion_higher_is_better=direction)
        if not (invariance or degradation):
            continue
        pair = goodness_pair(execution, relation, contract)
        if pair is None:
            continue
        if invariance:
            stab.append(stability_score(*pair, eps=eps))
        else:
            sens.append(sensitivity_score(*pair, eps=eps))
    return StabilitySensitivity(
        stability=fmean(stab) if stab else None,
        stability_cases=len(stab),
        sensitivity=fmean(sens) if sens else None,
        sensitivity_cases=len(sens),
        eps=eps,
    )
