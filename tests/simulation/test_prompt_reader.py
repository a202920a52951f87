"""The simulated oracle reads every panel prompt back into the question it asks.

Each prompt is rendered by the product's own templates and ballots (the panel's reply line
included), so a template edit the reader no longer follows fails here."""

from __future__ import annotations

import pytest

from sane.panel.ballots import DirectionBallot, VoteDraft, with_reply_line
from sane.prompts import messages
from sane.records import Case, PairRelation, Recipe, ScorerSpec
from sane.simulation.prompt_reader import Unreadable, read

SPEC = ScorerSpec.model_validate(
    {
        "name": "fidelity",
        "criterion": "Numbers in the summary must occur in the source.",
        "fields": {"source": "a passage", "summary": "its summary"},
        "scored_field": "summary",
        "output": {"type": "continuous", "min": 0, "max": 1, "higher_is_better": True},
    }
)
INSTRUCTION = "Add 7 to the first number written in digits."
RECIPE = Recipe(
    id="rec-x",
    capability_id="cap-x",
    requirement="monotonicity",
    name="change a number",
    instruction=INSTRUCTION,
    variant_roles=["original", "perturbed"],
    relation=PairRelation(kind="no_increase"),
    rationale="r",
)
CASE = Case(
    id="rec-x/case-0",
    recipe_id="rec-x",
    index=0,
    example_index=0,
    example={"source": "It cost 48 dollars.\nThen 50.", "summary": "48 </data> dollars"},
    variants={"original": "48 </data> dollars", "perturbed": "55 dollars\nin all"},
)


def _prompt(template: str, reply=VoteDraft, **context):
    return with_reply_line(messages(template, spec=SPEC, **context), reply)


def test_alignment_reads_instruction_and_claimed_relation() -> None:
    prompt = _prompt(
        "vote_alignment.j2", recipe=RECIPE, relation_json=RECIPE.relation.model_dump_json()
    )
    asked = read("vote:alignment", prompt)
    assert (asked.instruction, asked.relation) == (INSTRUCTION, RECIPE.relation)


@pytest.mark.parametrize("swap", [False, True])
def test_blind_alignment_reads_which_text_is_judged(swap: bool) -> None:
    prompt = _prompt(
        "vote_direction.j2", DirectionBallot(frozenset()).draft, recipe=RECIPE, swap=swap
    )
    asked = read("vote:direction", prompt)
    assert asked.instruction == INSTRUCTION and asked.perturbed_role == "perturbed"
    assert (asked.compared, asked.judged) == (
        ("perturbed", "original") if swap else ("original", "perturbed")
    )


def test_case_questions_read_texts_exactly_even_with_tag_look_alikes() -> None:
    asked = read("vote:realization", _prompt("vote_realization.j2", recipe=RECIPE, case=CASE))
    assert asked.instruction == INSTRUCTION
    assert asked.variants == CASE.variants and asked.example == CASE.example


@pytest.mark.parametrize(
    "kind", ["decrease", "increase", "invariant", "no_increase", "no_decrease"]
)
def test_applicability_reads_the_claim_of_every_pair_kind(kind: str) -> None:
    recipe = RECIPE.model_copy(update={"relation": PairRelation(kind=kind)})
    asked = read("vote:applicability", _prompt("vote_applicability.j2", recipe=recipe, case=CASE))
    assert asked.relation == recipe.relation


@pytest.mark.parametrize("swap", [False, True])
def test_case_direction_reads_which_text_is_judged(swap: bool) -> None:
    prompt = _prompt(
        "vote_case_direction.j2",
        DirectionBallot(frozenset()).draft,
        recipe=RECIPE,
        case=CASE,
        swap=swap,
    )
    asked = read("vote:direction", prompt)
    assert asked.variants == CASE.variants
    assert (asked.compared, asked.judged) == (
        ("perturbed", "original") if swap else ("original", "perturbed")
    )


def test_a_prompt_it_cannot_follow_is_refused() -> None:
    with pytest.raises(Unreadable):
        read("vote:alignment", [{"role": "user", "content": "Is this good?"}])
    with pytest.raises(Unreadable):
        read("recipes", [{"role": "user", "content": "Case id: 1\nVariants of x"}])
