"""The judge reply parser accepts the asked-for shapes and refuses everything else."""

from __future__ import annotations

import pytest

from sane.errors import ScorerError
from sane.scorers.judge_parse import parse_judge_score


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"score": 4, "reason": "mostly supported"}', 4.0),
        ('```json\n{"score": 2.5}\n```', 2.5),
        ('Here is my verdict: {"score": 3, "reason": "x"}', 3.0),
        ('{"score": "5"}', 5.0),
        ("Score: 4", 4.0),
        ("The summary omits nothing false.\nScore: 2", 2.0),
        ("**Score:** 3/5", 3.0),
        ("score = 1 out of 5.", 1.0),
        ("4", 4.0),
        ("  0.75\n", 0.75),
    ],
)
def test_accepted_shapes(reply: str, expected: float) -> None:
    assert parse_judge_score(reply) == expected


@pytest.mark.parametrize(
    "reply",
    [
        "I think it's good",
        "",
        "The summary deserves a 4 in my view",
        '{"reason": "no score here"}',
        '{"score": "high"}',
        '{"score": true}',
        "Score: 4\nScore: 2",
        "Score: 4 or 5",
        '{"score": NaN}',
    ],
)
def test_refused_shapes(reply: str) -> None:
    with pytest.raises(ScorerError, match="unparseable judge output"):
        parse_judge_score(reply)


@pytest.mark.parametrize(
    "reply",
    [
        '{"score": 3} Score: 5',  # a JSON score and a Score line that disagree
        'Score: 5\n{"score": 3}',
        '{"score": 3, "score": 5}',  # JSON keeps the last of two keys; both were claimed
        '{"score": 4, "reason": "the score: 2 would be too harsh"}',
        "My score=2.\nScore: 4",
    ],
)
def test_two_different_scores_in_any_forms_are_refused(reply: str) -> None:
    with pytest.raises(ScorerError, match="conflicting scores"):
        parse_judge_score(reply)


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"score": 3} Score: 3', 3.0),  # the same score twice is one score
        ('{"score": 4, "max_score": 5, "score_reason": "x"}', 4.0),  # other keys are not scores
        ("Score: 4\nScore: 4.0", 4.0),
    ],
)
def test_one_score_said_twice_is_accepted(reply: str, expected: float) -> None:
    assert parse_judge_score(reply) == expected
