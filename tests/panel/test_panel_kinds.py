"""Panel kinds: each kind is one object that says how every question is asked.

One row per kind and question: the template, the ballot's task and contrast, and the calls a
vote costs; adding a kind is one registration (sane.panel.kinds) and one row here.
"""

from __future__ import annotations

import pytest

from sane.panel.ballots import DECOY_INSTRUCTION, TEXTS_EXCHANGED, DirectionBallot
from sane.panel.kinds import PANEL_KINDS, panel_kind
from sane.records import (
    Case,
    OutputContract,
    PairRelation,
    Question,
    Recipe,
    RepeatableRelation,
    Requirement,
    ScorerSpec,
)

SPEC = ScorerSpec(
    name="s", criterion="faithful to the source", fields={"source": "s", "summary": "t"},
    scored_field="summary", output=OutputContract(min=0, max=1),
)  # fmt: skip
RECIPE = Recipe(
    id="rec-1-1",
    capability_id="cap-1",
    requirement=Requirement.monotonicity,
    name="add a claim",
    instruction="Add one claim the source does not support.",
    variant_roles=["original", "perturbed"],
    relation=PairRelation(kind="decrease"),
    rationale="",
)
OTHER = RECIPE.model_copy(
    update={"id": "rec-2-1", "capability_id": "cap-2", "instruction": "Shorten every sentence."}
)
CASE = Case(
    id="rec-1-1/case-0", recipe_id="rec-1-1", index=0, example_index=0,
    example={"source": "A cat sat.", "summary": "A cat sat."},
    variants={"original": "A cat sat.", "perturbed": "A cat sat on a mat in Paris."},
)  # fmt: skip
A, R, P = Question.alignment, Question.realization, Question.applicability

# kind: {question: (template, contrast, calls per vote)}, and whether the mirror must be rejected
TABLE = {
    "plain": (
        {A: ("vote_alignment.j2", None, 1), R: ("vote_realization.j2", None, 1),
         P: ("vote_applicability.j2", None, 1)},
        False,
    ),
    "contrastive": (
        {A: ("vote_alignment.j2", None, 1), R: ("vote_realization.j2", None, 1),
         P: ("vote_applicability.j2", None, 1)},
        True,
    ),
    "blind": (
        {A: ("vote_direction.j2", TEXTS_EXCHANGED, 2),
         R: ("vote_realization.j2", DECOY_INSTRUCTION, 2),
         P: ("vote_case_direction.j2", TEXTS_EXCHANGED, 2)},
        True,
    ),
}  # fmt: skip


def _text(prompt: list[dict[str, str]] | None) -> str:
    return "\n".join(message["content"] for message in prompt or [])


def test_every_registered_kind_has_a_row() -> None:
    assert set(PANEL_KINDS) == set(TABLE)


@pytest.mark.parametrize("name", sorted(TABLE))
def test_each_kind_asks_each_question_as_its_row_says(name: str) -> None:
    kind = panel_kind(name)
    questions, rejects_mirror = TABLE[name]
    assert kind.rejects_mirror is rejects_mirror
    for question, (template, contrast, calls) in questions.items():
        case = None if question is A else CASE
        asked = kind.question(question, SPEC, RECIPE, case, [RECIPE, OTHER])
        assert (asked.template, asked.ballot.contrast, asked.calls_per_vote) == (
            template,
            contrast,
            calls,
        )
        assert "rec-1-1" in _text(asked.prompt)  # rendered for this recipe (or its case)
        if contrast == DECOY_INSTRUCTION:  # the contrast is the same case, another instruction
            assert "Shorten every sentence." in _text(asked.contrast)


def test_a_blind_direction_is_asked_only_of_pair_relations() -> None:
    blind = panel_kind("blind")
    assert isinstance(blind.question(A, SPEC, RECIPE).ballot, DirectionBallot)
    repeat = RECIPE.model_copy(
        update={"relation": RepeatableRelation(kind="repeatable"), "variant_roles": ["original"]}
    )
    asked = blind.question(A, SPEC, repeat)
    assert (asked.template, asked.ballot.contrast) == ("vote_alignment.j2", None)


def test_a_decoy_falls_back_to_yes_no_when_the_suite_has_no_other_instruction() -> None:
    asked = panel_kind("blind").question(R, SPEC, RECIPE, CASE, [RECIPE])
    assert (asked.ballot.contrast, asked.contrast, asked.calls_per_vote) == (None, None, 1)


@pytest.mark.parametrize("name", sorted(TABLE))
def test_a_control_is_asked_the_plain_realization_question_under_every_kind(name: str) -> None:
    asked = panel_kind(name).control_question(SPEC, RECIPE, CASE)
    assert (asked.template, asked.ballot.contrast, asked.calls_per_vote) == (
        "vote_realization.j2",
        None,
        1,
    )


def test_an_unknown_kind_is_named_with_the_known_ones() -> None:
    with pytest.raises(
        ValueError, match="unknown panel kind 'tribunal'.*blind, contrastive, plain"
    ):
        panel_kind("tribunal")
