"""Which structured answers the local runtime reads as one choice instead of generating."""

from __future__ import annotations

import json

import pytest

from sane.local.llama import Choice
from sane.panel.ballots import DirectionAnswer, DirectionDraft, VoteDecision, VoteDraft


class WordTokenizer:
    """A stand-in vocabulary: the opening, `: "`, each part of the value split at `-`, and
    the closing `"}`: "no-go" and "no" share their first token."""

    def tokenize(self, text: bytes, add_bos: bool, special: bool) -> list[int]:
        opening, _, rest = text.decode().partition(': "')
        pieces = [opening, ': "'] + [
            p for p in rest.replace("-", " -").replace('"}', ' "}').split(" ") if p
        ]
        return [hash(p) % 10_000 for p in pieces]


@pytest.mark.parametrize(
    ("schema", "values"),
    [(VoteDecision, ("yes", "no")), (DirectionAnswer, ("lower", "higher", "same"))],
)
def test_an_answer_only_vote_is_a_choice(schema, values):
    choice = Choice.of(schema.model_json_schema())
    assert choice is not None and choice.values == values
    reply = choice.reply(values[0])
    assert reply.startswith(choice.opening)
    assert schema.model_validate_json(reply).model_dump() == {choice.field: values[0]}


@pytest.mark.parametrize(
    "schema",
    [
        VoteDraft.model_json_schema(),  # a rationale to write first
        DirectionDraft.model_json_schema(),
        {"type": "object", "properties": {"n": {"enum": [1, 2]}}, "required": ["n"]},
        {"type": "object", "properties": {"d": {"enum": ["yes", "no"]}}},  # not required
        {"type": "object", "properties": {"d": {"type": "string"}}, "required": ["d"]},
        None,
    ],
)
def test_anything_else_is_generated(schema):
    assert Choice.of(schema) is None


def test_values_that_start_alike_are_generated():
    tokens = WordTokenizer()
    assert Choice("d", ("yes", "no")).first_tokens(tokens) is not None  # type: ignore[arg-type]
    assert Choice("d", ("no", "no-go")).first_tokens(tokens) is None  # type: ignore[arg-type]


def test_the_reply_escapes_what_json_must():
    choice = Choice('say "hi"', ('a "quoted" b',))
    assert json.loads(choice.reply('a "quoted" b')) == {'say "hi"': 'a "quoted" b'}
