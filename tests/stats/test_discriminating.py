"""The default ranking score: no null scorer can win it."""

from __future__ import annotations

import pytest

from sane.stats import CaseOutcome, balanced_score


def _cases(family: str, requirement: str, verdicts: list[bool], discriminating: bool):
    return [CaseOutcome(family, requirement, v, discriminating) for v in verdicts]


def test_each_class_weighs_half_and_requirements_and_families_weigh_evenly_within_it():
    # moves: requirement A, families 1/2 and 1/1 -> 0.75; B: 0/2 -> 0; half = 0.375.
    # holds: robustness 6/8 (one family) and monotonicity 1/1 -> (0.75 + 1) / 2 = 0.875.
    outcomes = (
        _cases("inv", "robustness", [True] * 6 + [False] * 2, False)
        + _cases("noinc", "monotonicity", [True], False)
        + _cases("f1", "A", [True, False], True)
        + _cases("f2", "A", [True], True)
        + _cases("f3", "B", [False, False], True)
    )
    score = balanced_score(outcomes, n_resamples=200)
    assert (score.moves, score.holds) == (0.375, 0.875)
    assert score.value == pytest.approx((0.375 + 0.875) / 2)
    assert (score.discriminating_cases, score.judged_cases) == (5, 14)
    assert score.constant_pass_share == 9 / 14
    assert (score.families, score.requirements) == (5, 4)
    assert score.ci[0] <= score.value <= score.ci[1]


def test_a_scorer_that_never_moves_gets_one_half_whatever_the_mix():
    for holding in (1, 10, 100):  # the share of invariance cases does not lift it
        constant = _cases("inv", "robustness", [True] * holding, False) + _cases(
            "dec", "monotonicity", [False] * 3, True
        )
        assert balanced_score(constant, n_resamples=50).value == 0.5


def test_a_scorer_that_moves_at_random_loses_to_one_that_moves_where_it_should():
    # random: passes half the cases that need a move and fails half the ones that need it
    # to hold; careful: passes both. Counting only the first class would tie them.
    noise = _cases("dec", "monotonicity", [True, False] * 2, True) + _cases(
        "inv", "robustness", [True, False] * 2, False
    )
    careful = _cases("dec", "monotonicity", [True, True, True, False], True) + _cases(
        "inv", "robustness", [True] * 4, False
    )
    assert balanced_score(noise, n_resamples=50).value == 0.5
    assert balanced_score(careful, n_resamples=50).value == 0.875


def test_a_suite_without_discriminating_cases_cannot_rank():
    score = balanced_score(_cases("inv", "robustness", [True] * 4, False))
    assert score.value is None and "no discriminating case" in score.note
    assert score.constant_pass_share == 1.0


def test_without_a_holding_case_the_score_is_the_discriminating_half():
    score = balanced_score(_cases("dec", "monotonicity", [True, False], True), n_resamples=50)
    assert score.value == score.moves == 0.5 and score.holds is None
    assert "discriminating half alone" in score.note
