"""The paired test of two targets' default scores that the ranks rest on."""

from __future__ import annotations

from fractions import Fraction

import pytest
from scipy import stats

import sane.stats._balanced_comparison as module
from sane.stats import (
    CaseOutcome,
    balanced_comparison,
    balanced_comparisons,
    balanced_score,
    sign_flip_p,
)


def _cases(family, requirement, verdicts, discriminating):
    return [
        CaseOutcome(family, requirement, v, discriminating, f"{family}/{i}")
        for i, v in enumerate(verdicts)
    ]


@pytest.mark.parametrize(("wins", "losses"), [(5, 0), (7, 2), (3, 3), (10, 1), (0, 4)])
def test_with_equal_weights_it_is_mcnemars_exact_test(wins, losses):
    weights = [Fraction(1, 20)] * (wins + losses)
    p, method = sign_flip_p(weights, [1] * wins + [-1] * losses)
    assert method == "exact"
    assert p == pytest.approx(stats.binomtest(wins, wins + losses, 0.5).pvalue)


def test_weighted_cases_by_hand():
    # D = 1/2 + 1/4 - 1/4 = 1/2; the 8 sign patterns give +-1 (2), +-1/2 (4), 0 (2): 6 of 8
    # reach |D| >= 1/2
    p, _ = sign_flip_p([Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)], [1, 1, -1])
    assert p == 0.75
    assert sign_flip_p([], []) == (1.0, "exact")


def test_the_monte_carlo_agrees_with_the_exact_distribution(monkeypatch):
    weights = [Fraction(1, n) for n in (4, 4, 6, 6, 6, 8, 8, 12, 12, 12, 16, 16)]
    signs = [1, 1, 1, -1, 1, 1, 1, -1, 1, 1, 1, 1]
    exact, method = sign_flip_p(weights, signs)
    assert method == "exact"
    monkeypatch.setattr(module, "EXACT_LIMIT", 4)
    estimate, method = sign_flip_p(weights, signs, seed=3)
    assert method == "monte carlo" and estimate == pytest.approx(exact, abs=0.01)


def test_the_difference_is_that_of_the_default_scores_and_reads_from_either_side():
    judge = _cases("inv", "robustness", [True] * 6 + [False] * 2, False) + _cases(
        "dec", "monotonicity", [True] * 7 + [False], True
    )
    constant = _cases("inv", "robustness", [True] * 8, False) + _cases(
        "dec", "monotonicity", [False] * 8, True
    )
    pair = balanced_comparison("judge", judge, "constant", constant, n_resamples=500)
    expected = balanced_score(judge).value - balanced_score(constant).value
    assert pair.difference == pytest.approx(expected) and pair.score_b == 0.5
    assert (pair.cases, pair.discriminating_cases) == (16, 8)
    assert (pair.only_a_passes, pair.only_b_passes) == (7, 2)
    assert pair.difference_ci[0] < pair.difference < pair.difference_ci[1]
    flipped = pair.seen_from("constant")
    assert flipped.difference == -pair.difference and flipped.only_a_passes == 2
    assert flipped.difference_ci == (-pair.difference_ci[1], -pair.difference_ci[0])


def test_pairs_are_holm_adjusted_and_undefined_without_a_discriminating_case():
    moving = _cases("dec", "monotonicity", [True] * 10, True)
    still = _cases("dec", "monotonicity", [False] * 10, True)
    holding = _cases("inv", "robustness", [True] * 4, False)
    pairs = balanced_comparisons({"a": moving, "b": still, "c": still}, n_resamples=200)
    by_pair = {(c.a, c.b): c for c in pairs}
    ab = by_pair[("a", "b")]
    # a-b and a-c: 10 of 10 discordant cases one way, p = 2 / 2^10; Holm over 3 pairs: x 3
    assert ab.p_value == pytest.approx(2 / 2**10) and ab.p_adjusted == pytest.approx(3 * ab.p_value)
    assert ab.better == "a" and by_pair[("b", "c")].better is None
    assert by_pair[("b", "c")].difference == 0 and by_pair[("b", "c")].difference_ci is None
    none = balanced_comparison("x", holding, "y", holding)
    assert none.p_value is None and "no discriminating case" in none.note and none.cases == 4
    assert balanced_comparison("x", moving, "y", holding).note == "no case judged by both"
