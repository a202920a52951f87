"""How each panel question is put to a model, and how its answer becomes yes or no.

A yes/no ballot shows the claim and asks whether it holds; a model that says
yes to everything passes every such ballot, and small models lean that way.
A direction ballot never shows the claim: it asks which way the score moves
when a text is changed as the recipe says ("lower", "higher" or "same") and
code compares the answer with the recipe's relation. A constant answer then fits
one direction at most, and the recipe and its mirror get the same prompt (one
cached answer, opposite verdicts), so the two can never both be accepted.

A direction vote is also *order-checked*: it is asked twice, the second time with
the two texts' roles exchanged ("compared with the changed text, the original's
score is ..."), and it counts only when the two answers agree once the second
is turned round. An oracle that answers "lower" whatever it reads (the embedded
1.5B model does, on every pair of `benchmarks/bench_oracle.py`) then decides no
direction at all, instead of validating every decrease the agent claims.
Under a blind panel a realization vote is checked the same way against a decoy:
the case is also asked whether it realizes another recipe's instruction, and a
yes counts only when that one gets a no.

Every ballot has two reply shapes, and the panel asks for one (`vote_rationale` in the
run's configuration): a one-sentence rationale written before the answer (the default:
the model states a reason before it commits), or the answer alone. The line that asks
for the reply is written from the schema asked for (`with_reply_line`), under the task's
own question, so the prompt and the schema always agree.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import ClassVar, Literal, Protocol

from pydantic import BaseModel, Field, field_validator

from sane.records import Decision, Relation, Vote
from sane.relations import kind_of

RATIONALE_CHARS = 160  # "one short sentence": the bound reaches a local model's grammar
RATIONALE_ASKED = '"rationale": "one short sentence", '


class _Drafted(BaseModel):
    """A reply with a rationale, written first (the schema's field order is the reply's)."""

    shape: ClassVar[str]  # the answer's part of the reply line, e.g. '"decision": "yes" or "no"'
    rationale: str = Field(default="", max_length=RATIONALE_CHARS)

    @field_validator("rationale", mode="before")
    @classmethod
    def _shorten(cls, value: object) -> object:
        """A remote model that writes more keeps its vote; the rationale is cut, not refused."""
        return value[:RATIONALE_CHARS] if isinstance(value, str) else value


class _Answered(BaseModel):
    """A reply that is the answer alone: its rationale is empty, and never generated."""

    shape: ClassVar[str]
    rationale: ClassVar[str] = ""


class VoteDraft(_Drafted):
    shape: ClassVar[str] = '"decision": "yes" or "no"'
    decision: Literal["yes", "no"]


class VoteDecision(_Answered):
    shape: ClassVar[str] = VoteDraft.shape
    decision: Literal["yes", "no"]


class DirectionDraft(_Drafted):
    shape: ClassVar[str] = '"answer": "lower", "higher" or "same"'
    answer: Literal["lower", "higher", "same"]


class DirectionAnswer(_Answered):
    shape: ClassVar[str] = DirectionDraft.shape
    answer: Literal["lower", "higher", "same"]


Reply = type[_Drafted] | type[_Answered]


def reply_for(ballot: Ballot, rationale: bool) -> Reply:
    """The reply shape a vote on `ballot` asks for: with a rationale first, or the answer alone."""
    return ballot.draft if rationale else ballot.answer


def with_reply_line(prompt: list[dict[str, str]], reply: Reply) -> list[dict[str, str]]:
    """The vote prompt with the line that asks for `reply`'s shape under its question."""
    asked = RATIONALE_ASKED if issubclass(reply, _Drafted) else ""
    *head, last = prompt
    return [*head, {**last, "content": f"{last['content']}\nReturn {{{asked}{reply.shape}}}."}]


def vote_call(
    prompt: list[dict[str, str]], ballot: Ballot, rationale: bool
) -> tuple[list[dict[str, str]], Reply]:
    """What one vote on `ballot` sends: the prompt with its reply line, and the reply shape
    (the panel sends it; the dry-run estimate counts it)."""
    reply = reply_for(ballot, rationale)
    return with_reply_line(prompt, reply), reply


TEXTS_EXCHANGED = "texts_exchanged"
DECOY_INSTRUCTION = "decoy_instruction"


class Ballot(Protocol):
    """What a vote asks for (`draft` with a rationale, `answer` without, under task
    `vote:<task>`) and how it decides.

    A ballot with a `contrast` asks every vote twice: the question, and a contrast
    question whose answer a sound oracle knows from the first (`TEXTS_EXCHANGED`: the
    same question with the texts' roles exchanged, rendered with `swap=True`;
    `DECOY_INSTRUCTION`: the same case asked about another recipe's instruction).
    `combine` makes the vote's decision from both answers, with a note on why."""

    task: str
    draft: type[_Drafted]
    answer: type[_Answered]
    contrast: str | None

    def decision(self, draft: BaseModel) -> Decision: ...

    def combine(self, asked: BaseModel, contrast: BaseModel) -> tuple[Decision, str]: ...


@dataclass(frozen=True)
class YesNoBallot:
    """Yes or no to the claim shown. With `contrast=DECOY_INSTRUCTION` (realization under a
    blind panel) a yes counts only when the decoy instruction gets a no: an oracle that
    says every instruction was carried out has not read the case."""

    task: str
    draft: type[_Drafted] = VoteDraft
    answer: type[_Answered] = VoteDecision
    contrast: str | None = None

    def decision(self, draft: BaseModel) -> Decision:
        assert isinstance(draft, (VoteDraft, VoteDecision))
        return Decision(draft.decision)

    def combine(self, asked: BaseModel, contrast: BaseModel) -> tuple[Decision, str]:
        own, decoy = self.decision(asked), self.decision(contrast)
        if own is Decision.yes and decoy is Decision.yes:
            return Decision.unresolved, "decoy accepted too (yes to another recipe's instruction): "
        return own, ""


TURNED_ROUND = {"lower": "higher", "higher": "lower", "same": "same"}
"""A direction answered with the texts' roles exchanged, read in the original order."""


@dataclass(frozen=True)
class DirectionBallot:
    """Yes when the model's direction is one the relation allows; every vote is asked both
    ways round and counts only when its two answers agree."""

    expected: frozenset[str]
    task: str = "direction"
    draft: type[_Drafted] = DirectionDraft
    answer: type[_Answered] = DirectionAnswer
    contrast: str | None = TEXTS_EXCHANGED

    def decision(self, draft: BaseModel) -> Decision:
        assert isinstance(draft, (DirectionDraft, DirectionAnswer))
        return Decision.yes if draft.answer in self.expected else Decision.no

    def turned_round(self, draft: BaseModel) -> Decision:
        """The decision on an answer given with the texts' roles exchanged."""
        assert isinstance(draft, (DirectionDraft, DirectionAnswer))
        return self.decision(draft.model_copy(update={"answer": TURNED_ROUND[draft.answer]}))

    def combine(self, asked: BaseModel, contrast: BaseModel) -> tuple[Decision, str]:
        decision = self.decision(asked)
        if decision is not self.turned_round(contrast):
            return Decision.unresolved, "order-inconsistent (the answer depended on the order): "
        return decision, ""


def order_consistent(vote: Vote) -> bool | None:
    """Whether an order-checked vote's two answers agreed once the second was turned round;
    None for a vote that was not order-checked or has no answers (a failed call)."""
    if f'"{TEXTS_EXCHANGED}":' not in vote.raw:
        return None
    answers = json.loads(vote.raw)
    asked, exchanged = answers["as_asked"]["answer"], answers[TEXTS_EXCHANGED]["answer"]
    return asked == TURNED_ROUND[exchanged]


def direction_ballot(relation: Relation) -> DirectionBallot | None:
    """The blind ballot for a pair relation; None for kinds a direction cannot express."""
    expected = kind_of(relation).directions
    return None if expected is None else DirectionBallot(expected)
