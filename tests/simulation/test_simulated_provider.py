"""The simulated oracle as a provider: controlled corruption, replies through the real client,
and an honest error where no exact truth exists."""

from __future__ import annotations

import asyncio
from collections import Counter
from itertools import pairwise
from pathlib import Path

import pytest

from sane.errors import LLMError
from sane.llm import LLMClient, LLMSettings, model_problem
from sane.panel.ballots import (
    DirectionAnswer,
    DirectionDraft,
    VoteDecision,
    VoteDraft,
    with_reply_line,
)
from sane.prompts import messages
from sane.records import PairRelation
from sane.simulation.params import parse, with_run_inputs
from sane.simulation.provider import corrupt, question_accuracy
from tests.simulation.sim_helpers import oracle, refs, sweep_spec
from tests.simulation.test_prompt_reader import CASE, RECIPE, SPEC

QUESTIONS = [f"q{i}" for i in range(4000)]


@pytest.mark.parametrize("accuracy", [0.55, 0.85, 1.0])
def test_accuracy_is_the_share_of_right_votes(accuracy: float) -> None:
    sim = parse(oracle(accuracy=accuracy))
    right = sum(corrupt(sim, True, q, 0, 0) is True for q in QUESTIONS)
    assert abs(right / len(QUESTIONS) - accuracy) < 0.025
    wrong = [corrupt(sim, "lower", q, 0, 0) for q in QUESTIONS]
    counts = Counter(w for w in wrong if w != "lower")
    if accuracy < 1:  # the wrong directions are the other two, evenly
        assert set(counts) == {"higher", "same"}
        assert abs(counts["higher"] - counts["same"]) < 0.2 * sum(counts.values())


def test_correlation_repeats_one_draw_over_a_questions_votes() -> None:
    def identical(correlation: float) -> float:
        sim = parse(oracle(accuracy=0.5, correlation=correlation))
        same = sum(len({corrupt(sim, True, q, i, 0) for i in range(3)}) == 1 for q in QUESTIONS)
        return same / len(QUESTIONS)

    # independent votes agree 3-of-3 with chance 0.5^3 * 2 = 0.25; correlated ones always
    assert abs(identical(0.0) - 0.25) < 0.03
    assert abs(identical(0.6) - (0.6 + 0.4 * 0.25)) < 0.03


def test_bias_replaces_answers_with_one_fixed_answer() -> None:
    sim = parse(oracle(accuracy=1.0, bias=1.0))
    assert {corrupt(sim, False, q, 0, 0) for q in QUESTIONS[:200]} == {True}
    assert {corrupt(sim, "higher", q, 0, 0) for q in QUESTIONS[:200]} == {"lower"}


def test_votes_are_deterministic_and_differ_by_seed() -> None:
    sim = parse(oracle(accuracy=0.6))
    first = [corrupt(sim, True, q, 1, 0) for q in QUESTIONS[:300]]
    assert first == [corrupt(sim, True, q, 1, 0) for q in QUESTIONS[:300]]
    assert first != [corrupt(sim, True, q, 1, 1) for q in QUESTIONS[:300]]


def _rightness(sim, votes: int, seed: int = 0) -> list[list[bool]]:
    """Each question's votes, as right (True) or wrong, on a yes/no question whose truth is yes."""
    return [[corrupt(sim, True, q, i, seed) is True for i in range(votes)] for q in QUESTIONS]


@pytest.mark.parametrize("accuracy", [0.55, 0.85])
def test_difficulty_keeps_the_marginal_accuracy(accuracy: float) -> None:
    sim = parse(oracle(accuracy=accuracy, difficulty=0.3))
    votes = [v for question in _rightness(sim, 2) for v in question]
    assert abs(sum(votes) / len(votes) - accuracy) < 0.02
    per_question = [question_accuracy(sim, q, 0) for q in QUESTIONS]
    assert abs(sum(per_question) / len(per_question) - accuracy) < 0.01
    assert min(per_question) < 0.5  # some questions are misread more often than not


def test_difficulty_makes_a_questions_votes_agree_by_that_correlation() -> None:
    """Two votes' rightness on one question correlate by `difficulty` (the beta-binomial's
    intraclass correlation); independent draws agree only by chance."""

    def agreement_and_correlation(difficulty: float) -> tuple[float, float]:
        pairs = _rightness(parse(oracle(accuracy=0.85, difficulty=difficulty)), 2)
        agree = sum(a == b for a, b in pairs) / len(pairs)
        mean_a = sum(a for a, _ in pairs) / len(pairs)
        mean_b = sum(b for _, b in pairs) / len(pairs)
        both = sum(a and b for a, b in pairs) / len(pairs)
        spread = (mean_a * (1 - mean_a) * mean_b * (1 - mean_b)) ** 0.5
        return agree, (both - mean_a * mean_b) / spread

    independent, hard = agreement_and_correlation(0.0), agreement_and_correlation(0.3)
    assert abs(independent[0] - (0.85**2 + 0.15**2)) < 0.02 and abs(independent[1]) < 0.05
    assert hard[0] > independent[0] + 0.04
    assert abs(hard[1] - 0.3) < 0.06
    always = _rightness(parse(oracle(accuracy=0.85, difficulty=1.0)), 3)
    assert all(len(set(question)) == 1 for question in always)  # right always, or never


def test_a_questions_difficulty_is_drawn_once_from_the_seed_and_the_question() -> None:
    sim = parse(oracle(accuracy=0.7, difficulty=0.3))
    first = [question_accuracy(sim, q, 0) for q in QUESTIONS[:300]]
    assert first == [question_accuracy(sim, q, 0) for q in QUESTIONS[:300]]
    assert first != [question_accuracy(sim, q, 1) for q in QUESTIONS[:300]]
    votes = [[corrupt(sim, True, q, i, 0) for i in range(3)] for q in QUESTIONS[:300]]
    assert votes == [[corrupt(sim, True, q, i, 0) for i in range(3)] for q in QUESTIONS[:300]]
    # the same questions are the hard ones at another accuracy: difficulty is the question's
    better = [
        question_accuracy(parse(oracle(accuracy=0.9, difficulty=0.3)), q, 0)
        for q in QUESTIONS[:300]
    ]
    ranked = sorted(range(300), key=first.__getitem__)
    assert all(better[i] <= better[j] for i, j in pairwise(ranked))


def test_difficulty_is_named_in_the_model_string_only_when_set() -> None:
    hard = parse(oracle(accuracy=0.85, difficulty=0.3))
    assert ",difficulty=0.3," in hard.model_string() and "difficulty 0.3" in hard.describe()
    assert parse(hard.model_string()) == hard
    plain = parse(oracle(accuracy=0.85))
    assert "difficulty" not in plain.model_string() + plain.describe()
    assert "difficulty" in model_problem("sim/difficulty=2,truth=m:f")


def test_bad_strings_are_refused_before_a_run() -> None:
    assert model_problem(oracle(accuracy=0.9)) is None
    assert "accuracy" in model_problem("sim/accuracy=1.5,truth=m:f")
    assert "truth" in model_problem("sim/accuracy=0.9")
    assert "standard library" in model_problem("sim/truth=subprocess:run")
    assert "NAME=VALUE" in model_problem("sim/accuracy,truth=m:f")


def _client(tmp_path: Path) -> tuple[LLMClient, str]:
    spec = sweep_spec(tmp_path)
    model = with_run_inputs(oracle(accuracy=1.0), spec, refs.REFERENCES["number_fidelity"].examples)
    return LLMClient(LLMSettings(cache_path=tmp_path / "cache.db", backoff_s=0.0)), model


@pytest.mark.parametrize(
    ("draft", "answer"), [(VoteDraft, VoteDecision), (DirectionDraft, DirectionAnswer)]
)
def test_replies_parse_as_the_ballot_asks_through_the_real_client(
    tmp_path: Path, draft, answer
) -> None:
    client, model = _client(tmp_path)
    recipe = RECIPE.model_copy(update={"relation": PairRelation(kind="decrease")})
    direction = draft is DirectionDraft
    template = "vote_case_direction.j2" if direction else "vote_applicability.j2"
    task = "vote:direction" if direction else "vote:applicability"
    for reply in (draft, answer):
        prompt = with_reply_line(messages(template, spec=SPEC, recipe=recipe, case=CASE), reply)
        got = asyncio.run(client.structured(model, prompt, reply, task=task, seed=0))
        # 48 -> 55 is no longer in the source: the score drops, the claim holds
        assert (got.answer == "lower") if direction else (got.decision == "yes")
        if reply is draft:
            assert got.rationale.startswith("simulated oracle")
    assert client.cost == 0.0


def test_a_free_form_recipe_is_an_error_never_a_vote(tmp_path: Path) -> None:
    client, model = _client(tmp_path)
    recipe = RECIPE.model_copy(update={"instruction": "Rewrite the summary in other words."})
    prompt = with_reply_line(
        messages(
            "vote_alignment.j2",
            spec=SPEC,
            recipe=recipe,
            relation_json=recipe.relation.model_dump_json(),
        ),
        VoteDraft,
    )
    with pytest.raises(LLMError, match="no exact truth"):
        asyncio.run(client.structured(model, prompt, VoteDraft, task="vote:alignment"))
    assert client.calls_made == 1  # permanent: not retried
