"""The behavioral profile of a target: mean score change per recipe and per requirement.

Behavioral-correctness paper, section 3.4: for a transformation t with instances D_t,
``Delta_t(M) = mean_{R_t in D_t} (M(R_t) - M(R_0))``; for an assumption a with
transformations T_a, ``Delta_a(M) = mean_{t in T_a} Delta_t(M)``. Here a transformation is a
recipe, an assumption is one of the six requirements, and M is the target's score
normalised to [0, 1] in the spec's direction (the space the relations are written in).

Section 3.6 compares two independently generated suites with
``MAE_assump(M) = mean_{a in A} |Delta_a^(A)(M) - Delta_a^(B)(M)|`` (:func:`profile_mae`).

Which two variants a case's "change" is measured between depends on the relation; the
relation kind says (`RelationKind.change`, sane.relations). Relations without a perturbation
(``repeatable``, ``at_level``) have no change and are left out of the profile.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from statistics import fmean

from pydantic import Field

from sane.records import ExecutionRecord, OutputContract, Recipe, Verdict
from sane.relations import KINDS
from sane.stats._base import StatsModel, finite


def change_roles(relation: object) -> tuple[str, str] | None:
    """The (from, to) roles of a relation's score change; None if it has no change."""
    kind = KINDS.get(getattr(relation, "kind", ""))
    return None if kind is None or kind.change is None else kind.change(relation)


def role_scores(execution: ExecutionRecord, role: str, contract: OutputContract) -> list[float]:
    """A role's normalised repeat scores (``None`` repeats dropped).

    Uses the record's ``normalised`` scores; records without them (hand-built ones) are
    normalised with ``contract``.
    """
    values = [v for v in execution.normalised.get(role, []) if v is not None]
    if values:
        return values
    return [contract.normalise(v) for v in execution.scores.get(role, []) if v is not None]


def case_change(
    execution: ExecutionRecord,
    relation: object,
    contract: OutputContract,
    *,
    repeat: int | None = None,
) -> float | None:
    """``s(to) - s(from)`` of one execution; repeats averaged, or only repeat ``repeat``.

    None when the relation has no change, the execution is an error, or a score is missing.
    """
    roles = change_roles(relation)
    if roles is None or execution.verdict is Verdict.error:
        return None
    values = []
    for role in roles:
        scores = role_scores(execution, role, contract)
        if repeat is not None:
            scores = scores[repeat : repeat + 1]
        if not scores:
            return None
        values.append(fmean(scores))
    change = values[1] - values[0]
    return change if finite(change) else None


class RequirementProfile(StatsModel):
    """Mean score change per recipe (Delta_t) and per requirement (Delta_a) of one target."""

    by_requirement: dict[str, float] = Field(default_factory=dict)
    by_recipe: dict[str, float] = Field(default_factory=dict)
    cases: dict[str, int] = Field(default_factory=dict)


def requirement_profile(
    executions: Iterable[ExecutionRecord],
    recipes: Mapping[str, Recipe],
    contract: OutputContract,
    *,
    repeat: int | None = None,
) -> RequirementProfile:
    """Delta_t per recipe, then Delta_a = the unweighted mean of its recipes' Delta_t."""
    changes: dict[str, list[float]] = defaultdict(list)
    for execution in executions:
        recipe = recipes.get(execution.recipe_id)
        if recipe is None:
            continue
        change = case_change(execution, recipe.relation, contract, repeat=repeat)
        if change is not None:
            changes[recipe.id].append(change)
    by_recipe = {rid: fmean(values) for rid, values in sorted(changes.items())}
    per_requirement: dict[str, list[float]] = defaultdict(list)
    for rid, delta in by_recipe.items():
        per_requirement[recipes[rid].requirement.value].append(delta)
    return RequirementProfile(
        by_requirement={req: fmean(v) for req, v in sorted(per_requirement.items())},
        by_recipe=by_recipe,
        cases={rid: len(values) for rid, values in sorted(changes.items())},
    )


class ProfileDistance(StatsModel):
    """MAE between two requirement profiles over the requirements both measured.

    ``mae`` is None (with ``note``) when the profiles share no requirement.
    """

    mae: float | None = None
    requirements: list[str] = Field(default_factory=list)
    differences: dict[str, float] = Field(default_factory=dict)
    only_in_a: list[str] = Field(default_factory=list)
    only_in_b: list[str] = Field(default_factory=list)
    note: str | None = None


def profile_mae(a: Mapping[str, float | None], b: Mapping[str, float | None]) -> ProfileDistance:
    """``mean_a |a[r] - b[r]|`` over the keys with a finite value on both sides."""
    left = {k for k, v in a.items() if finite(v)}
    right = {k for k, v in b.items() if finite(v)}
    common = sorted(left & right)
    differences = {k: abs(float(a[k]) - float(b[k])) for k in common}  # type: ignore[arg-type]
    return ProfileDistance(
        mae=fmean(differences.values()) if common else None,
        requirements=common,
        differences=differences,
        only_in_a=sorted(left - right),
        only_in_b=sorted(right - left),
        note=None if common else "undefined: no requirement measured by both profiles",
    )
