"""The decisions a human can review: one item per panel decision, with the texts it judged.

Alignment items are recipes (instruction, relation, rationale); realization and
applicability items are cases (the source example and every variant's text). Sampling is
seeded so an export can be repeated exactly.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field

from sane.agents.cases import example_for
from sane.panel import controls
from sane.records import (
    Case,
    Decision,
    PanelDecision,
    Question,
    Recipe,
    SuiteSnapshot,
    Transcript,
    Vote,
)

# What the human is asked; the oracle panel answered the same question.
QUESTION_TEXT: dict[Question, str] = {
    Question.alignment: "Does this recipe and its expected relation agree with the "
    "scorer's criterion? (yes/no)",
    Question.realization: "Do the variants realize the recipe's instruction? (yes/no)",
    Question.applicability: "Does the expected relation really apply to these variants? (yes/no)",
}


class PanelCall(BaseModel):
    """One model call behind a panel vote: the prompt as sent and the raw answer
    (a contrastive ballot makes two; a schema repair one more)."""

    model_config = ConfigDict(extra="forbid")

    vote: int  # the vote's position in the decision's votes
    model: str
    decision: Decision  # what that vote decided
    prompt: str
    reply: str
    truncated: bool = False


class ReviewItem(BaseModel):
    """One panel decision with what a human needs to judge it independently."""

    model_config = ConfigDict(extra="forbid")

    item_id: str
    question: Question
    prompt: str
    criterion: str
    recipe_id: str
    recipe_name: str
    requirement: str
    capability: str
    instruction: str
    relation: str
    rationale: str
    example: dict[str, str] = Field(default_factory=dict)
    variants: dict[str, str] = Field(default_factory=dict)
    panel_decision: Decision
    panel_votes: str
    # the prompts and answers behind the votes, when the suite's transcripts were given
    panel_calls: list[PanelCall] = Field(default_factory=list)


def _votes(decision: PanelDecision) -> str:
    return ", ".join(vote.decision.value for vote in decision.votes) or "decided by code"


def _calls(votes: list[Vote], transcripts: Mapping[str, Transcript]) -> list[PanelCall]:
    return [
        PanelCall(
            vote=index,
            model=t.model,
            decision=vote.decision,
            prompt=t.prompt,
            reply=t.reply,
            truncated=t.truncated,
        )
        for index, vote in enumerate(votes)
        for t in (transcripts.get(key) for key in vote.transcripts)
        if t is not None
    ]


def _decisions(snapshot: SuiteSnapshot, question: Question) -> dict[str, PanelDecision]:
    return {
        Question.alignment: snapshot.alignment,
        Question.realization: snapshot.realization,
        Question.applicability: snapshot.applicability,
    }[question]


def panel_call_keys(snapshot: SuiteSnapshot, question: Question) -> set[str]:
    """The transcript keys behind every vote on ``question`` (what `review_items` shows)."""
    decisions = _decisions(snapshot, question).values()
    return {key for decision in decisions for vote in decision.votes for key in vote.transcripts}


def planted_controls(snapshot: SuiteSnapshot) -> dict[str, list[tuple[str, Recipe, Case]]]:
    """The suite's planted realization controls by owner (a recipe's or a case's id): each
    control's subject id and the recipe and case it showed the panel, rebuilt exactly (those
    that cannot be are left out). The review page and the review file put each one to the
    person beside its owner, unmarked, as the panel was asked it."""
    cases = {case.id: case for case in snapshot.cases}
    scored = snapshot.spec.scored_field

    def first_example(seq: int) -> int:
        return example_for(seq, 0, len(snapshot.examples))

    planted: dict[str, list[tuple[str, Recipe, Case]]] = {}
    for subject in sorted(snapshot.realization):
        owner = controls.owner(subject)
        if owner is None:
            continue
        rebuilt = controls.rebuild(
            subject, snapshot.recipes, cases, snapshot.examples, scored, first_example
        )
        if rebuilt is not None:
            planted.setdefault(owner, []).append((subject, *rebuilt))
    return planted


def control_item_id(subject: str) -> str:
    """A control's id in a review file: opaque, so the file does not tell the person which
    items are controls (a planted subject id names its kind)."""
    return "item-" + hashlib.sha256(subject.encode("utf-8")).hexdigest()[:12]


def control_subjects(snapshot: SuiteSnapshot) -> dict[str, str]:
    """A review file's control item id -> the control's subject id (for the import)."""
    return {
        control_item_id(subject): subject
        for planted in planted_controls(snapshot).values()
        for subject, _, _ in planted
    }


def review_items(
    snapshot: SuiteSnapshot,
    question: Question,
    transcripts: Mapping[str, Transcript] | None = None,
) -> list[ReviewItem]:
    """Every decision the panel made on ``question``, in the suite's order; with
    ``transcripts`` (the suite's, by key), each item carries its votes' prompts and answers.
    Realization items include the planted controls, each after its owner (a recipe's after
    the recipe's cases begin, a family's after its case) under an opaque id, as the review
    page asks them, so a fully reviewed suite has its controls answered."""
    decisions = _decisions(snapshot, question)
    recipes = {recipe.id: recipe for recipe in snapshot.recipes}
    capabilities = {c.id: c.name for c in snapshot.capabilities}
    if question is Question.alignment:
        subjects = [(recipe.id, recipe, None) for recipe in snapshot.recipes]
    else:
        planted = planted_controls(snapshot) if question is Question.realization else {}
        subjects = []
        for recipe in snapshot.recipes:
            subjects += [(s, r, c) for s, r, c in planted.get(recipe.id, [])]
        for case in snapshot.cases:
            subjects.append((case.id, recipes.get(case.recipe_id), case))
            subjects += [(s, r, c) for s, r, c in planted.get(case.id, [])]
    items = []
    for subject_id, recipe, case in subjects:
        decision = decisions.get(subject_id)
        if decision is None or recipe is None:
            continue
        items.append(
            ReviewItem(
                item_id=control_item_id(subject_id)
                if controls.owner(subject_id) is not None
                else subject_id,
                question=question,
                prompt=QUESTION_TEXT[question],
                criterion=snapshot.spec.criterion.strip(),
                recipe_id=recipe.id,
                recipe_name=recipe.name,
                requirement=recipe.requirement.value,
                capability=capabilities.get(recipe.capability_id, recipe.capability_id),
                instruction=recipe.instruction,
                relation=recipe.relation.model_dump_json(),
                rationale=recipe.rationale,
                example=dict(case.example) if case else {},
                variants=dict(case.variants) if case else {},
                panel_decision=decision.decision,
                panel_votes=_votes(decision),
                panel_calls=_calls(decision.votes, transcripts or {}),
            )
        )
    return items


def sample_items(items: list[ReviewItem], n: int | None, seed: int = 0) -> list[ReviewItem]:
    """A seeded simple random sample of ``n`` items (all of them when ``n`` is None or
    larger), kept in the suite's order."""
    if n is None or n >= len(items):
        return list(items)
    chosen = set(random.Random(seed).sample(range(len(items)), n))
    return [item for index, item in enumerate(items) if index in chosen]
