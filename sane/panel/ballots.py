"""How each panel question is put to a model, and how its answer becomes yes or no.

A yes/no ballot shows the claim and asks whether it holds; a model that says
yes to everything passes every such ballot, and small models lean that way.
A direction ballot never shows the claim: it asks which way the score moves
when a text is changed as the recipe says ("lower", "higher" or "same") and
code compares the answer with the recipe's relation. A constant answer then fits
one direction at most, and the recipe and its mirror get the same prompt (one
cached answer, opposite verdicts), so the two can never both be accepted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from pydantic import BaseModel, Field, field_validator

from sane.records import Decision, Question, Recipe, Relation, RunConfig
from sane.relations import kind_of

RATIONALE_CHARS = 160  # "one short sentence": the bound reaches a local model's grammar


class _Drafted(BaseModel):
    rationale: str = Field(default="", max_length=RATIONALE_CHARS)

    @field_validator("rationale", mode="before")
    @classmethod
    def _shorten(cls, value: object) -> object:
        """A remote model that writes more keeps its vote; the rationale is cut, not refused."""
        return value[:RATIONALE_CHARS] if isinstance(value, str) else value


class VoteDraft(_Drafted):
    decision: Literal["yes", "no"]


class DirectionDraft(_Drafted):
    answer: Literal["lower", "higher", "same"]


class Ballot(Protocol):
    """What a vote asks for (`draft`, under task `vote:<task>`) and how it decides."""

    task: str
    draft: type[_Drafted]

    def decision(self, draft: BaseModel) -> Decision: ...


@dataclass(frozen=True)
class YesNoBallot:
    task: str
    draft: type[_Drafted] = VoteDraft

    def decision(self, draft: BaseModel) -> Decision:
        assert isinstance(draft, VoteDraft)
        return Decision(draft.decision)


@dataclass(frozen=True)
class DirectionBallot:
    """Yes when the model's direction is one the relation allows."""

    expected: frozenset[str]
    task: str = "direction"
    draft: type[_Drafted] = DirectionDraft

    def decision(self, draft: BaseModel) -> Decision:
        assert isinstance(draft, DirectionDraft)
        return Decision.yes if draft.answer in self.expected else Decision.no


def direction_ballot(relation: Relation) -> DirectionBallot | None:
    """The blind ballot for a pair relation; None for kinds a direction cannot express."""
    expected = kind_of(relation).directions
    return None if expected is None else DirectionBallot(expected)


def alignment_question(recipe: Recipe, config: RunConfig) -> tuple[str, Ballot | None]:
    """The alignment prompt template and ballot for one recipe under the suite's panel:
    the blind direction question where the panel is blind and the relation is a pair
    relation, otherwise the yes/no question (None: the panel's default ballot)."""
    if config.panel == "blind":
        ballot = direction_ballot(recipe.relation)
        if ballot is not None:
            return "vote_direction.j2", ballot
    return "vote_alignment.j2", None


CASE_TEMPLATES = {
    Question.realization: "vote_realization.j2",
    Question.applicability: "vote_applicability.j2",
}


def case_question(
    question: Question, recipe: Recipe, config: RunConfig
) -> tuple[str, Ballot | None]:
    """The prompt template and ballot for one case question: under a blind panel the
    applicability of a pair relation is the direction question on this case's own texts
    (code compares the answer with the relation); everything else is yes/no."""
    if config.panel == "blind" and question is Question.applicability:
        ballot = direction_ballot(recipe.relation)
        if ballot is not None:
            return "vote_case_direction.j2", ballot
    return CASE_TEMPLATES[question], None


def needs_mirror_rejected(config: RunConfig) -> bool:
    """Contrastive and blind panels align a recipe only when its mirror is not accepted."""
    return config.panel in ("contrastive", "blind")
