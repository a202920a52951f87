"""The simulated oracle's truth: exact answers from the reference scorer and code edits."""

from __future__ import annotations

from pathlib import Path

import pytest

from sane.edits import OPERATORS
from sane.panel.controls import FAITHFUL_EDITS
from sane.records import PairRelation
from sane.simulation.prompt_reader import Asked
from sane.simulation.truth import NoTruth, direction, edit_for, load_truth
from tests.simulation.sim_helpers import refs, sweep_spec

CHANGE_NUMBER = OPERATORS["change_number"]


@pytest.fixture(scope="module")
def truth(tmp_path_factory: pytest.TempPathFactory):
    spec = sweep_spec(tmp_path_factory.mktemp("truth"))
    return load_truth(
        refs.ref("number_fidelity", "reference"), spec, refs.REFERENCES["number_fidelity"].examples
    )


def test_instructions_name_their_edits_word_for_word() -> None:
    assert edit_for(CHANGE_NUMBER) == "change_number"
    assert edit_for(FAITHFUL_EDITS["extra_spaces"][1]) == "extra_spaces"
    assert edit_for("Paraphrase the summary.") is None


def test_direction_uses_the_pair_checks_tolerance() -> None:
    assert direction(0.5, 0.5 + 0.05) == "same"  # within the default tolerance 0.05
    assert direction(0.5, 0.6) == "higher" and direction(0.6, 0.5) == "lower"


def test_a_recipe_is_right_when_its_relation_holds_on_most_changed_examples(truth) -> None:
    # a changed number is (almost always) no longer in the source: the score drops
    assert truth.recipe_holds(CHANGE_NUMBER, PairRelation(kind="decrease"))
    assert truth.recipe_holds(CHANGE_NUMBER, PairRelation(kind="no_increase"))
    assert not truth.recipe_holds(CHANGE_NUMBER, PairRelation(kind="increase"))
    assert not truth.recipe_holds(CHANGE_NUMBER, PairRelation(kind="invariant"))
    # lower case changes no digit: the score stays
    lowercase = OPERATORS["lowercase"]
    assert truth.recipe_holds(lowercase, PairRelation(kind="invariant"))
    assert not truth.recipe_holds(lowercase, PairRelation(kind="decrease"))
    blind = Asked("vote:direction", instruction=CHANGE_NUMBER, perturbed_role="perturbed")
    assert (
        truth.answer(Asked(**{**blind.__dict__, "compared": "original", "judged": "perturbed"}))
        == "lower"
    )
    assert (
        truth.answer(Asked(**{**blind.__dict__, "compared": "perturbed", "judged": "original"}))
        == "higher"
    )


def test_case_questions_score_the_cases_own_texts(truth) -> None:
    example = {"source": "It cost 48 dollars.", "summary": "48 dollars."}
    variants = {"original": "48 dollars.", "perturbed": "55 dollars."}
    case = {"example": example, "variants": variants}
    assert truth.answer(Asked("vote:realization", instruction=CHANGE_NUMBER, **case)) is True
    wrong = {"original": "48 dollars.", "perturbed": "49 dollars."}
    assert (
        truth.answer(
            Asked("vote:realization", instruction=CHANGE_NUMBER, example=example, variants=wrong)
        )
        is False
    )
    noop = {"original": "48 dollars.", "perturbed": "48 dollars."}
    assert (
        truth.answer(
            Asked("vote:realization", instruction=CHANGE_NUMBER, example=example, variants=noop)
        )
        is False
    )
    decrease = PairRelation(kind="decrease")
    assert truth.answer(Asked("vote:applicability", relation=decrease, **case)) is True
    assert (
        truth.answer(Asked("vote:applicability", relation=PairRelation(kind="invariant"), **case))
        is False
    )
    assert (
        truth.answer(Asked("vote:direction", compared="original", judged="perturbed", **case))
        == "lower"
    )


def test_an_instruction_no_code_carries_out_has_no_truth(truth) -> None:
    with pytest.raises(NoTruth):
        truth.recipe_holds("Rewrite the summary in your own words.", PairRelation(kind="invariant"))
    with pytest.raises(NoTruth):
        truth.answer(
            Asked(
                "vote:realization",
                instruction="Paraphrase it.",
                variants={"original": "a", "perturbed": "b"},
            )
        )


def test_the_truth_is_loaded_from_the_files_it_names(tmp_path: Path) -> None:
    spec = sweep_spec(tmp_path)
    loaded = load_truth(
        refs.ref("number_fidelity", "reference"), spec, refs.REFERENCES["number_fidelity"].examples
    )
    assert len(loaded.examples) == 12 and loaded.spec.scored_field == "summary"
