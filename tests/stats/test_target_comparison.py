"""Paired comparison of two targets, Holm's correction and ranks that share a place."""

from __future__ import annotations

import pytest

from sane.stats import comparisons, paired_comparison, significance_ranks
from sane.stats._comparison import holm


def _verdicts(pattern: str) -> dict[str, bool]:
    return {f"c{i}": mark == "p" for i, mark in enumerate(pattern)}


def test_mcnemar_exact_counts_only_the_discordant_cases():
    a = _verdicts("p" * 8 + "f" + "p" * 5 + "f" * 6)
    b = _verdicts("f" * 8 + "p" + "p" * 5 + "f" * 6)
    pair = paired_comparison("A", a, "B", b)
    assert (pair.both_pass, pair.only_a_passes, pair.only_b_passes, pair.both_fault) == (5, 8, 1, 6)
    assert pair.p_value == pytest.approx(2 * (1 + 9) / 2**9)  # binomial(9, 1/2) two-sided
    assert pair.difference == pytest.approx(7 / 20)
    assert pair.difference_ci_method == "bootstrap"
    low, high = pair.difference_ci
    assert 0 < low < pair.difference < high
    assert pair.better == "A"


def test_identical_verdicts_never_read_as_certainly_equal():
    same = _verdicts("p" * 20)
    pair = paired_comparison("A", same, "B", same)
    assert pair.difference == 0 and pair.p_value == 1.0 and pair.better is None
    assert pair.difference_ci_method == "newcombe"  # the bootstrap collapses to [0, 0]
    low, high = pair.difference_ci
    assert low < 0 < high and high - low > 0.1


def test_only_shared_cases_count_and_none_shared_is_said():
    a = {"x": True, "y": True, "z": False}
    b = {"y": False, "z": False, "w": True}
    pair = paired_comparison("A", a, "B", b)
    assert pair.cases == 2 and pair.only_a_passes == 1
    empty = paired_comparison("A", {"x": True}, "B", {"y": True})
    assert empty.cases == 0 and empty.p_value is None and empty.note


def test_seen_from_the_other_side_flips_the_difference():
    pair = paired_comparison("A", _verdicts("ppppf"), "B", _verdicts("pffff"))
    flipped = pair.seen_from("B")
    assert (flipped.a, flipped.b) == ("B", "A")
    assert flipped.difference == -pair.difference
    assert flipped.difference_ci == (-pair.difference_ci[1], -pair.difference_ci[0])
    assert flipped.only_a_passes == pair.only_b_passes


def test_holm_adjusts_step_down_and_keeps_order():
    assert holm([0.01, 0.04, 0.03, None]) == pytest.approx([0.03, 0.06, 0.06, None])


def test_ranks_share_a_place_unless_a_test_separates_them():
    strong = _verdicts("p" * 30)
    middle = _verdicts("p" * 12 + "f" * 18)
    close = _verdicts("p" * 13 + "f" * 17)
    tested = comparisons({"strong": strong, "close": close, "middle": middle})
    rates = {"strong": 1.0, "close": 13 / 30, "middle": 0.4}
    assert significance_ranks(rates, tested) == {"strong": 1, "close": 2, "middle": 2}
    # Holm makes the two tests of "strong" stricter, not weaker
    assert all(c.p_adjusted >= c.p_value for c in tested)


def test_without_shared_cases_disjoint_intervals_decide():
    rates = {"a": 0.95, "b": 0.2, "c": 0.9}
    intervals = {"a": (0.85, 0.99), "b": (0.1, 0.35), "c": (0.5, 0.97)}
    assert significance_ranks(rates, (), intervals) == {"a": 1, "b": 3, "c": 1}
    assert significance_ranks(rates) == {"a": 1, "b": 1, "c": 1}
