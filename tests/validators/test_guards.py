"""Each validity guard: what it repairs or rejects, and what it must leave alone."""

from __future__ import annotations

import pytest

from sane.records import Case, Recipe, Requirement
from sane.validators.guards import (
    case_rejection,
    recipe_rejections,
    repair_recipe,
)

PAIR = {"kind": "decrease", "original": "original", "perturbed": "perturbed"}


def _recipe(
    rid: str = "rec-1-1",
    instruction: str = "Add one claim the source does not support.",
    relation: dict | None = None,
    roles: list[str] | None = None,
    requirement: Requirement = Requirement.monotonicity,
) -> Recipe:
    return Recipe(
        id=rid,
        capability_id="cap-1",
        requirement=requirement,
        name=instruction[:20],
        instruction=instruction,
        variant_roles=roles or ["original", "perturbed"],
        relation=relation or PAIR,
        rationale="",
    )


def _case(variants: dict[str, str], recipe_id: str = "rec-1-1") -> Case:
    return Case(
        id=f"{recipe_id}/case-0",
        recipe_id=recipe_id,
        index=0,
        example_index=0,
        example={"source": "s", "summary": variants.get("original", "")},
        variants=variants,
    )


# --------------------------------------------------------------- recipe repairs


def test_a_pair_relation_filed_under_subadditivity_is_refiled_to_monotonicity():
    repaired = repair_recipe(_recipe(requirement=Requirement.subadditivity))
    assert repaired.requirement is Requirement.monotonicity
    assert repaired.repairs[0].startswith("requirement_refiled:")


@pytest.mark.parametrize(
    ("relation", "roles", "home"),
    [
        ({"kind": "invariant"}, None, Requirement.robustness),
        (
            {"kind": "combined"},
            ["original", "edit_a", "edit_b", "edit_ab"],
            Requirement.subadditivity,
        ),
        ({"kind": "repeatable"}, ["original"], Requirement.repeatability),
        ({"kind": "spans", "series": ["l1", "l2"]}, ["l1", "l2"], Requirement.dynamic_range),
        ({"kind": "at_level", "variant": "original"}, ["original"], Requirement.calibration),
    ],
)
def test_every_kind_has_a_home_requirement(relation, roles, home):
    recipe = _recipe(relation=relation, roles=roles, requirement=Requirement.monotonicity)
    assert repair_recipe(recipe).requirement is home


def test_a_fitting_recipe_is_left_exactly_as_it_was():
    recipe = _recipe()
    assert repair_recipe(recipe) is recipe


def test_roles_the_relation_never_reads_are_dropped():
    recipe = _recipe(
        relation={"kind": "repeatable", "variant": "original"},
        roles=["original", "perturbed"],
        requirement=Requirement.repeatability,
    )
    repaired = repair_recipe(recipe)
    assert repaired.variant_roles == ["original"]
    assert repaired.repairs == ["unused_roles_dropped: the relation never reads ['perturbed']"]


# ------------------------------------------------------------ recipe rejections


@pytest.mark.parametrize(
    "instruction",
    [
        "Replace 'fact' with 'fact'.",
        'Replace the word "fact" with the word "Fact" in the summary.',
        "Change 12 to 12",
    ],
)
def test_an_instruction_that_replaces_something_with_itself_is_rejected(instruction):
    rejected = recipe_rejections([_recipe(instruction=instruction)])
    assert rejected["rec-1-1"][0] == "recipe_no_op"


@pytest.mark.parametrize(
    "instruction",
    [
        "Replace the word 'love' with 'hate' in the summary.",
        "Change one number in the summary to a different number.",
        "Add one claim the source does not support.",
    ],
)
def test_instructions_that_change_something_are_kept(instruction):
    assert recipe_rejections([_recipe(instruction=instruction)]) == {}


def test_a_near_duplicate_recipe_is_merged_into_the_first():
    first = _recipe("rec-1-1", "Replace a number in the summary with a different number.")
    twin = _recipe("rec-2-1", "Replace one number in the summary with a different number.")
    other_direction = _recipe(
        "rec-3-1",
        "Replace a number in the summary with a different number.",
        relation={"kind": "invariant"},
        requirement=Requirement.robustness,
    )
    rejected = recipe_rejections([first, twin, other_direction])
    assert list(rejected) == ["rec-2-1"]
    assert rejected["rec-2-1"][0] == "recipe_duplicate" and "rec-1-1" in rejected["rec-2-1"][1]


# ------------------------------------------------------------------ case guard


@pytest.mark.parametrize("perturbed", ["The cat sat.", "  the CAT   sat. ", "The cat sat.\n"])
def test_a_case_whose_perturbed_text_equals_the_original_is_rejected(perturbed):
    finding = case_rejection(_recipe(), _case({"original": "The cat sat.", "perturbed": perturbed}))
    assert finding is not None and finding[0] == "case_no_op"


def test_a_case_with_a_real_change_passes():
    case = _case({"original": "The cat sat.", "perturbed": "The dog sat."})
    assert case_rejection(_recipe(), case) is None


def test_a_series_with_two_equal_levels_is_rejected():
    recipe = _recipe(
        relation={"kind": "ordered", "series": ["l1", "l2", "l3"]},
        roles=["l1", "l2", "l3"],
        requirement=Requirement.calibration,
    )
    assert case_rejection(recipe, _case({"l1": "a", "l2": "b", "l3": "A"})) is not None
    assert case_rejection(recipe, _case({"l1": "a", "l2": "b", "l3": "c"})) is None


def test_combined_edits_must_differ_from_the_original_and_from_each_single_edit():
    recipe = _recipe(
        relation={"kind": "combined"},
        roles=["original", "edit_a", "edit_b", "edit_ab"],
        requirement=Requirement.subadditivity,
    )
    good = {"original": "o", "edit_a": "a", "edit_b": "b", "edit_ab": "ab"}
    assert case_rejection(recipe, _case(good)) is None
    assert case_rejection(recipe, _case({**good, "edit_ab": "a"})) is not None


def test_repeatability_reads_one_text_and_is_never_a_no_op():
    recipe = _recipe(
        relation={"kind": "repeatable", "variant": "original"},
        roles=["original"],
        requirement=Requirement.repeatability,
    )
    assert case_rejection(recipe, _case({"original": "x"})) is None


def test_a_whitespace_only_change_is_a_valid_robustness_case_but_no_decrease_test():
    spaced = {"original": "The cat sat.", "perturbed": "The  cat  sat."}
    invariant = _recipe(relation={"kind": "invariant"}, requirement=Requirement.robustness)
    assert case_rejection(invariant, _case(spaced)) is None
    assert case_rejection(_recipe(), _case(spaced)) is not None  # decrease expects a real change
    same = {"original": "The cat sat.", "perturbed": "The cat sat."}
    assert case_rejection(invariant, _case(same)) is not None


def test_two_recipes_that_differ_in_one_content_word_are_both_kept():
    positive = _recipe(
        "rec-1-1",
        "Rewrite the text to shift its stance toward more favorable sentiment.",
        relation={"kind": "no_increase"},
    )
    negative = _recipe(
        "rec-1-2",
        "Rewrite the text to shift its stance toward less favorable sentiment.",
        relation={"kind": "no_increase"},
    )
    assert recipe_rejections([positive, negative]) == {}
