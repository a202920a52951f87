"""A vote asks for one reply shape, and its prompt and schema agree on which.

With a rationale (the default) a vote writes one sentence before its answer; without, the
answer alone: the schema the model fills has no rationale field, so a grammar-constrained
embedded model cannot spend tokens on one, and the line under the question says so too.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from pydantic import BaseModel

from sane.panel.ballots import (
    DirectionAnswer,
    DirectionBallot,
    DirectionDraft,
    VoteDecision,
    VoteDraft,
    order_consistent,
)
from sane.panel.oracle import OraclePanel
from sane.records import Decision, Question


class RecordingLLM:
    """Answers every structured call with `answers[schema name]` and records what was asked."""

    def __init__(self, answers: dict[str, list[dict[str, Any]]]) -> None:
        self.answers = answers
        self.calls: list[tuple[list[dict[str, str]], type[BaseModel]]] = []

    async def structured(
        self, model: str, messages: list[dict[str, str]], schema: type[BaseModel], **_: Any
    ) -> BaseModel:
        self.calls.append((messages, schema))
        return schema.model_validate(self.answers[schema.__name__].pop(0))


QUESTION = [{"role": "system", "content": "spec"}, {"role": "user", "content": "Does it hold?"}]


def _decide(llm: RecordingLLM, *, rationale: bool, **kwargs: Any):
    panel = OraclePanel(llm, ["m"], votes=1, temperature=0.0, rationale=rationale)  # type: ignore[arg-type]
    return asyncio.run(panel.decide("rec-1", Question.alignment, QUESTION, **kwargs))


def test_a_vote_with_a_rationale_asks_for_it_first_and_keeps_it():
    llm = RecordingLLM({"VoteDraft": [{"rationale": "It adds a claim.", "decision": "no"}]})
    decision = _decide(llm, rationale=True)
    ((messages, schema),) = llm.calls
    assert schema is VoteDraft
    assert list(schema.model_json_schema()["properties"]) == ["rationale", "decision"]
    assert messages[-1]["content"] == (
        'Does it hold?\nReturn {"rationale": "one short sentence", "decision": "yes" or "no"}.'
    )
    assert messages[0] == QUESTION[0] and QUESTION[-1]["content"] == "Does it hold?"
    vote = decision.votes[0]
    assert (vote.decision, vote.rationale) == (Decision.no, "It adds a claim.")


def test_a_vote_without_a_rationale_has_no_field_to_write_one_in():
    llm = RecordingLLM({"VoteDecision": [{"decision": "yes"}]})
    decision = _decide(llm, rationale=False)
    ((messages, schema),) = llm.calls
    assert schema is VoteDecision
    assert set(schema.model_json_schema()["properties"]) == {"decision"}
    assert messages[-1]["content"] == 'Does it hold?\nReturn {"decision": "yes" or "no"}.'
    vote = decision.votes[0]
    assert (vote.decision, vote.rationale, vote.raw) == (Decision.yes, "", '{"decision":"yes"}')


@pytest.mark.parametrize(
    ("rationale", "schema", "shape"),
    [
        (True, DirectionDraft, '{"rationale": "one short sentence", "answer": "lower", '),
        (False, DirectionAnswer, '{"answer": "lower", '),
    ],
)
def test_an_order_checked_vote_asks_both_questions_in_the_same_shape(
    rationale: bool, schema: type[BaseModel], shape: str
):
    answers = [{"answer": "lower"}, {"answer": "higher"}]  # consistent once turned round
    if rationale:
        answers = [{**a, "rationale": "why"} for a in answers]
    llm = RecordingLLM({schema.__name__: answers})
    swapped = [QUESTION[0], {"role": "user", "content": "Exchanged?"}]
    decision = _decide(
        llm, rationale=rationale, ballot=DirectionBallot(frozenset({"lower"})), contrast=swapped
    )
    assert [s for _, s in llm.calls] == [schema, schema]
    assert all(shape in m[-1]["content"].splitlines()[-1] for m, _ in llm.calls)
    vote = decision.votes[0]
    assert vote.decision is Decision.yes and order_consistent(vote) is True
    assert json.loads(vote.raw)["as_asked"]["answer"] == "lower"
