"""The panel's own questions, put to a person in the browser (`sane view`, /review).

Why: offline, the embedded model cannot tell which way a score should move, so a person is
the only oracle there is; a spreadsheet is a poor way to be one. Each question here is the
question the panel was asked, in the form that keeps the answer honest:

- **direction** (a pair relation's alignment and applicability): asked blind, as the blind
  panel asks it. The person is shown the instruction (and, for a case, its texts) and says
  whether the changed text's score should be lower, higher or the same; code compares that
  with the recipe's claim (sane.panel.ballots.direction_ballot). Never shown the claim, a
  person cannot simply agree with it.
- **yes/no** (realization, and the alignment of relations a direction cannot express): the
  claim is shown; realization shows the changed words (word diff).

The suite's planted realization controls (no-op copies, decoys, faithful edits; their right
answers are known) are put to the person among the real questions, unmarked, so their
record measures the person as they measure the panel. An answer is stored as a review
label, and labels decide exactly as `sane review apply` makes them decide.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from sane.errors import InputError
from sane.panel.ballots import direction_ballot
from sane.records import Case, Decision, PairRelation, Question, Recipe, SuiteSnapshot
from sane.relations import formula
from sane.review._apply import ApplyResult, apply_labels
from sane.review._items import planted_controls
from sane.review._labels import TABLE as LABELS
from sane.review._labels import HumanLabel, save_labels
from sane.suites.store import SuiteStore

Mode = Literal["direction", "yes_no"]
ANSWERS: dict[str, tuple[str, ...]] = {
    "direction": ("lower", "same", "higher"),
    "yes_no": ("yes", "no"),
}


class ReviewQuestion(BaseModel):
    """One question as the page shows it (no claimed direction where it is asked blind)."""

    model_config = ConfigDict(extra="forbid")

    id: str  # "QUESTION|SUBJECT": unique in a suite
    subject_id: str
    question: Question
    mode: Mode
    ask: str
    instruction: str
    claim: str | None = None  # the relation, shown only for a yes/no question
    original_role: str | None = None
    changed_role: str | None = None
    example: dict[str, str] = Field(default_factory=dict)  # the example's other fields
    variants: dict[str, str] = Field(default_factory=dict)
    answer: str | None = None  # the person's answer so far (None: not answered)


ASK = {
    ("direction", Question.alignment): (
        "A scorer follows the criterion exactly. A text is changed by the instruction "
        "below. Compared with the original's score, the changed text's score should be:"
    ),
    ("direction", Question.applicability): (
        "Judge these two texts yourself, by the criterion and nothing else. Compared with "
        "the original, the changed text deserves a score that is:"
    ),
    ("yes_no", Question.alignment): (
        "Does this recipe, with the relation it claims, agree with the criterion?"
    ),
    ("yes_no", Question.applicability): ("Does the claimed relation really apply to these texts?"),
    ("yes_no", Question.realization): (
        "Do the changed texts carry out the instruction on this example, changing what it "
        "asks and nothing else that matters?"
    ),
}


def _mode(question: Question, recipe: Recipe) -> Mode:
    if question is Question.realization or direction_ballot(recipe.relation) is None:
        return "yes_no"
    return "direction"


def _question(
    subject_id: str, question: Question, recipe: Recipe, case: Case | None, scored: str
) -> ReviewQuestion:
    mode = _mode(question, recipe)
    pair = recipe.relation if isinstance(recipe.relation, PairRelation) else None
    claim = None
    if mode == "yes_no" and question is not Question.realization:
        claim = f"{recipe.relation.kind}: {formula(recipe.relation.model_dump(mode='json'))}"
    return ReviewQuestion(
        id=f"{question.value}|{subject_id}",
        subject_id=subject_id,
        question=question,
        mode=mode,
        ask=ASK[(mode, question)],
        instruction=recipe.instruction,
        claim=claim,
        original_role=pair.original if pair else None,
        changed_role=pair.perturbed if pair else None,
        example={k: v for k, v in case.example.items() if k != scored} if case else {},
        variants=dict(case.variants) if case else {},
    )


def review_questions(
    snapshot: SuiteSnapshot, answers: dict[str, str] | None = None
) -> list[ReviewQuestion]:
    """The panel's questions on this suite, in its order: each recipe's alignment and its
    faithful-edit control, then each written case's realization and applicability with the
    controls built from it (a person cannot tell the controls from the rest)."""
    answers = answers or {}
    recipes = {recipe.id: recipe for recipe in snapshot.recipes}
    scored = snapshot.spec.scored_field
    planted = planted_controls(snapshot)  # recipe or case id -> its controls, rebuilt
    asked: list[ReviewQuestion] = []

    def add_controls(owner: str) -> None:
        for subject, recipe, case in planted.get(owner, []):
            asked.append(_question(subject, Question.realization, recipe, case, scored))

    for recipe in snapshot.recipes:
        asked.append(_question(recipe.id, Question.alignment, recipe, None, scored))
        add_controls(recipe.id)
    for case in snapshot.cases:
        recipe = recipes.get(case.recipe_id)
        if recipe is None or case.error or case.not_applicable or not case.variants:
            continue  # a case that was never written (or declined) has nothing to judge
        # every written case, decided by the panel or not (sequential decisions skip the
        # rest of a family once it cannot reach tau: a person may still decide them)
        for question in (Question.realization, Question.applicability):
            asked.append(_question(case.id, question, recipe, case, scored))
        add_controls(case.id)
    return [q.model_copy(update={"answer": answers.get(q.id)}) for q in asked]


def decision_of(question: ReviewQuestion, recipe: Recipe | None, answer: str) -> Decision:
    """The decision an answer makes: a direction against the recipe's claim, else yes/no."""
    if answer not in ANSWERS[question.mode]:
        raise ValueError(f"{answer!r} is not an answer to a {question.mode} question")
    if question.mode == "direction":
        assert recipe is not None
        ballot = direction_ballot(recipe.relation)
        assert ballot is not None
        return Decision.yes if answer in ballot.expected else Decision.no
    return Decision.yes if answer == "yes" else Decision.no


VIEW_SOURCE = "sane view"  # the source of labels answered on the review page


def page_answers(store: SuiteStore) -> dict[str, str]:
    """Question id -> the answer given on the review page (kept as the label's note)."""
    if not store.db[LABELS].exists():
        return {}
    rows = store.db.query(
        f"select subject_id, question, note from {LABELS} where source = ?", [VIEW_SOURCE]
    )
    return {f"{row['question']}|{row['subject_id']}": row["note"] for row in rows}


def answer_question(store: SuiteStore, question_id: str, answer: str) -> ApplyResult:
    """Store a person's answer as a review label and put every label in force, exactly as
    `sane review apply` does. An unknown question or answer is bad input naming it."""
    snapshot = store.snapshot()
    asked = {q.id: q for q in review_questions(snapshot)}
    question = asked.get(question_id)
    if question is None:
        raise InputError(str(store.path), "question", f"no question {question_id!r} in this suite")
    if answer not in ANSWERS[question.mode]:
        choices = ", ".join(ANSWERS[question.mode])
        raise InputError(str(store.path), "answer", f"{answer!r} is not one of {choices}")
    recipe = None
    if question.mode == "direction":
        case = next((c for c in snapshot.cases if c.id == question.subject_id), None)
        recipe_id = case.recipe_id if case else question.subject_id
        recipe = next(r for r in snapshot.recipes if r.id == recipe_id)
    decision = decision_of(question, recipe, answer)
    label = HumanLabel(
        item_id=question.subject_id,
        question=question.question,
        label=decision is Decision.yes,
        note=answer,
    )
    save_labels(store, [label], source=VIEW_SOURCE)
    return apply_labels(store, source=VIEW_SOURCE)
