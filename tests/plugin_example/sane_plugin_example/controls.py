"""A control kind `example_swapped`: a tested family's first case with its two texts
exchanged, asked whether it realizes the recipe's instruction. For a directed edit (one whose
mirror contradicts it) the exchanged texts undo the instruction, so the right answer is no."""

from __future__ import annotations

from sane.panel.controls import ControlKind, Planting, register_control_kind
from sane.records import Case, Decision, PairRelation, Question, Recipe
from sane.relations import kind_of


def swapped(planting: Planting) -> tuple[Recipe, Case] | None:
    recipe, case = planting.recipe, planting.first_case
    relation = recipe.relation
    if case is None or not isinstance(relation, PairRelation):
        return None
    if not kind_of(relation).mirror_contradicts:
        return None
    variants = dict(case.variants)
    variants[relation.original], variants[relation.perturbed] = (
        case.variants[relation.perturbed],
        case.variants[relation.original],
    )
    return recipe, case.model_copy(update={"variants": variants})


register_control_kind(
    ControlKind(
        name="example_swapped",
        question=Question.realization,
        right=Decision.no,
        planted="family",
        summary="a real case with its original and changed texts exchanged",
        build=swapped,
    )
)
