"""Planted controls as kinds (sane.panel.controls): each kind says its question, its right
answer, when it is planted and how its item is built; the panel, the review page, the
estimate and the reports read the same objects."""

from __future__ import annotations

from sane.panel import controls
from sane.records import Case, Decision, PanelDecision, Question, Recipe

RECIPES = [
    Recipe(id=f"rec-1-{i}", capability_id=f"cap-{i}", requirement="monotonicity", name=f"r{i}",
           instruction=instruction, variant_roles=["original", "perturbed"],
           relation={"kind": "decrease"}, rationale="")
    for i, instruction in ((1, "Add one unsupported claim."), (2, "Delete the last sentence."))
]  # fmt: skip
EXAMPLES = [{"source": "s", "summary": "One two. Three four."}]
CASE = Case(id="rec-1-1/case-0", recipe_id="rec-1-1", index=0, example_index=0,
            example=EXAMPLES[0], variants={"original": "One two.", "perturbed": "One two. X."})  # fmt: skip


def _decided(subject: str, decision: Decision, question: Question) -> PanelDecision:
    return PanelDecision(subject_id=subject, question=question, decision=decision, votes=[])


def test_sanes_kinds_and_their_right_answers() -> None:
    kinds = controls.CONTROL_KINDS
    assert list(kinds) == ["mirror", "noop", "decoy", "faithful"]
    assert controls.kinds(negative=True) == ("mirror", "noop", "decoy")
    assert controls.kinds(negative=False) == ("faithful",)
    assert kinds["mirror"].question is Question.alignment
    assert controls.planted_per_recipe() == 3  # the estimate's realization controls


def test_a_subject_id_is_written_and_read_in_one_place() -> None:
    subject = controls.subject_of(controls.CONTROL_KINDS["decoy"], CASE.id)
    assert subject == "control:decoy:rec-1-1/case-0"
    kind, shown = controls.parse(subject)
    assert kind.name == "decoy" and shown == CASE.id
    assert controls.owner(subject) == CASE.id
    assert controls.owner("control:faithful:rec-1-1/case-0") == "rec-1-1"
    assert controls.owner(controls.mirror_id("rec-1-1")) == "rec-1-1"
    assert controls.parse("rec-1-1") is None and controls.parse("control:gone:x") is None
    assert controls.right_answer(subject) is Decision.no


def test_the_planted_controls_are_rebuilt_exactly_for_the_review_page() -> None:
    planted = controls.recipe_controls(0, RECIPES[0], 0, EXAMPLES, "summary", RECIPES)
    planted += controls.family_controls(RECIPES[0], CASE, RECIPES, 0, EXAMPLES, "summary")
    assert [subject for subject, _, _ in planted] == [
        "control:faithful:rec-1-1/case-0",
        "control:noop:rec-1-1/case-0",
        "control:decoy:rec-1-1/case-0",
    ]
    cases = {CASE.id: CASE}
    for subject, recipe, case in planted:
        rebuilt = controls.rebuild(subject, RECIPES, cases, EXAMPLES, "summary", lambda seq: 0)
        assert rebuilt == (recipe, case)
    assert controls.rebuild(controls.mirror_id("rec-1-1"), RECIPES, cases, EXAMPLES, "summary",
                            lambda seq: 0) is None  # fmt: skip


def test_the_tally_counts_each_kind_against_its_right_answer() -> None:
    alignment = {
        "rec-1-1": _decided("rec-1-1", Decision.yes, Question.alignment),
        controls.mirror_id("rec-1-1"): _decided("m", Decision.yes, Question.alignment),
        "rec-1-2": _decided("rec-1-2", Decision.no, Question.alignment),
        controls.mirror_id("rec-1-2"): _decided("m", Decision.yes, Question.alignment),
    }
    realization = {
        "control:noop:rec-1-1/case-0": _decided("n", Decision.yes, Question.realization),
        "control:decoy:rec-1-1/case-0": _decided("d", Decision.unresolved, Question.realization),
        "control:faithful:rec-1-1/case-0": _decided("f", Decision.unresolved, Question.realization),
        "rec-1-1/case-0": _decided("c", Decision.yes, Question.realization),
    }
    assert controls.tally(alignment, realization) == {
        "mirror": (2, 1),  # wrong only beside an accepted recipe
        "noop": (1, 1),
        "decoy": (1, 0),  # unresolved is not an acceptance
        "faithful": (1, 1),  # ...so a known-right item left unresolved is wrong
    }


def _recipe(rid: str, instruction: str, roles: list[str], relation: dict) -> Recipe:
    return Recipe(id=rid, capability_id="cap-1", requirement="monotonicity", name=rid,
                  instruction=instruction, variant_roles=roles, relation=relation,
                  rationale="")  # fmt: skip


def test_a_noop_shows_the_examples_own_text_in_every_role_even_without_an_original() -> None:
    """A series of edited texts has no "original" variant: its no-op must still be the
    example's unchanged text, not one edited variant copied into every role (which a careful
    reader rightly calls realized)."""
    series = _recipe("rec-2-1", "Make half, then all, of the claims unsupported.",
                     ["half", "all"], {"kind": "ordered", "series": ["all", "half"]})  # fmt: skip
    case = Case(id="rec-2-1/case-0", recipe_id="rec-2-1", index=0, example_index=0,
                example=EXAMPLES[0], variants={"half": "One X.", "all": "Y X."})  # fmt: skip
    planted = controls.family_controls(series, case, [series], 0, EXAMPLES, "summary")
    (noop,) = [case for subject, _, case in planted if subject.startswith("control:noop")]
    assert noop.variants == {"half": EXAMPLES[0]["summary"], "all": EXAMPLES[0]["summary"]}


def test_no_noop_for_a_recipe_that_scores_the_example_as_it_is() -> None:
    band = _recipe("rec-2-2", "Score the summary unchanged.", ["original"],
                   {"kind": "at_level", "variant": "original", "low": 0.8, "high": 1.0})  # fmt: skip
    case = Case(id="rec-2-2/case-0", recipe_id="rec-2-2", index=0, example_index=0,
                example=EXAMPLES[0], variants={"original": EXAMPLES[0]["summary"]})  # fmt: skip
    planted = controls.family_controls(band, case, [band], 0, EXAMPLES, "summary")
    assert not [s for s, _, _ in planted if s.startswith("control:noop")]


def test_a_recipe_asking_for_the_same_edit_in_other_words_is_no_decoy() -> None:
    mine = _recipe("rec-3-1", "Replace every claim of the summary with an unsupported claim.",
                   ["original", "perturbed"], {"kind": "decrease"})  # fmt: skip
    twin = _recipe("rec-3-2", "Replace every claim in the summary with one unsupported claim.",
                   ["original", "perturbed"], {"kind": "decrease"})  # fmt: skip
    other = _recipe("rec-3-3", "Double every space between two words.",
                    ["original", "perturbed"], {"kind": "invariant"})  # fmt: skip
    other = other.model_copy(update={"capability_id": "cap-2"})
    same_capability = other.model_copy(update={"id": "rec-3-4", "capability_id": "cap-1"})
    case = CASE.model_copy(update={"recipe_id": "rec-3-1", "id": "rec-3-1/case-0"})
    assert controls.decoy(mine, case, [mine, twin]) is None
    assert controls.decoy(mine, case, [mine, same_capability]) is None  # one ability, one edit
    fake, _ = controls.decoy(mine, case, [mine, twin, same_capability, other])
    assert fake.instruction == other.instruction


def test_a_mirror_lists_its_series_as_the_recipe_lists_its_own() -> None:
    """A recipe writer lists a series' roles in the series' order; a mirror that reversed the
    series but not the "Variants:" line ran against its own prediction, which told a reader
    it was the mirror (a strong model's reader noticed). Roles outside the relation stay."""
    recipe = Recipe(id="rec-6-1", capability_id="cap-6", requirement="calibration", name="ladder",
                    instruction="Write a worse and a worst version.",
                    variant_roles=["worst", "worse", "original", "note"],
                    relation={"kind": "ordered", "series": ["worst", "worse", "original"]},
                    rationale="")  # fmt: skip
    mirror = controls.mirrored_recipe(recipe)
    assert mirror.relation.series == ["original", "worse", "worst"]
    assert mirror.variant_roles == ["original", "worse", "worst", "note"]
    pair = controls.mirrored_recipe(RECIPES[0])
    assert pair.relation.kind == "increase" and pair.variant_roles == ["original", "perturbed"]
