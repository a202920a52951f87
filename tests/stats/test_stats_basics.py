"""sane.stats: intervals, rank agreement, ranks, stability/sensitivity, threshold sweep."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sp

from sane.records import ExecutionRecord, OutputContract, Recipe
from sane.stats import (
    bootstrap_ci,
    default_taus,
    pass_rate_ci,
    rank_correlation,
    ranks,
    stability_sensitivity,
    threshold_sensitivity,
)

# ------------------------------------------------------------------ bootstrap


def test_bootstrap_ci_of_mean_is_close_to_normal_theory():
    values = np.random.default_rng(1).normal(10.0, 2.0, size=400)
    low, high = bootstrap_ci(values, np.mean, n_resamples=1000)
    half = 1.96 * values.std(ddof=1) / math.sqrt(values.size)
    assert low < values.mean() < high
    assert low == pytest.approx(values.mean() - half, abs=0.06)
    assert high == pytest.approx(values.mean() + half, abs=0.06)


def test_bootstrap_ci_is_seeded_and_accepts_plain_callables():
    values = [0.1, 0.5, 0.2, 0.9, 0.4, 0.7]
    first = bootstrap_ci(values, lambda a: float(np.median(a)), n_resamples=300, seed=3)
    assert first == bootstrap_ci(values, lambda a: float(np.median(a)), n_resamples=300, seed=3)
    assert first[0] <= float(np.median(values)) <= first[1]
    wider = bootstrap_ci(values, np.mean, n_resamples=300, confidence=0.99)
    narrower = bootstrap_ci(values, np.mean, n_resamples=300, confidence=0.5)
    assert wider[0] < narrower[0] and narrower[1] < wider[1]


@pytest.mark.parametrize("values", [[], [0.3]])
def test_bootstrap_ci_without_spread_information_is_nan(values):
    low, high = bootstrap_ci(values, np.mean)
    assert math.isnan(low) and math.isnan(high)


def test_bootstrap_ci_of_constant_values_collapses_to_the_point():
    assert bootstrap_ci([0.4, 0.4, 0.4], np.mean) == pytest.approx((0.4, 0.4))


# ------------------------------------------------------------------ pass rate


@pytest.mark.parametrize(("passes", "total"), [(4, 5), (0, 7), (10, 10), (13, 40)])
def test_pass_rate_ci_is_the_wilson_interval(passes, total):
    z = sp.norm.ppf(0.975)
    p = passes / total
    denominator = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denominator
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denominator
    assert pass_rate_ci(passes, total) == pytest.approx((centre - half, centre + half))


def test_pass_rate_ci_degenerate_and_invalid():
    assert all(math.isnan(v) for v in pass_rate_ci(0, 0))
    low, high = pass_rate_ci(0, 5)
    assert low == pytest.approx(0.0, abs=1e-12) and high > 0.3
    with pytest.raises(ValueError):
        pass_rate_ci(6, 5)


# ---------------------------------------------------------------------- ranks


def test_ranks_best_first_ties_share_min_rank():
    assert ranks({"a": 0.9, "b": 0.8, "c": 0.9, "d": 0.5}) == {"a": 1, "c": 1, "b": 3, "d": 4}
    assert ranks({}) == {}


# ----------------------------------------------------------- rank correlation


def test_rank_correlation_matches_scipy():
    xs = {"a": 0.9, "b": 0.4, "c": 0.7, "d": 0.1, "e": 0.5, "f": 0.5, "only_x": 1.0}
    ys = {"a": 3.0, "b": 2.5, "c": 1.0, "d": 0.2, "e": 2.0, "f": 2.2, "only_y": 9.0}
    result = rank_correlation(xs, ys, n_resamples=400, seed=5)
    x = [0.9, 0.4, 0.7, 0.1, 0.5, 0.5]
    y = [3.0, 2.5, 1.0, 0.2, 2.0, 2.2]
    assert result.n == 6 and result.targets == ["a", "b", "c", "d", "e", "f"]
    assert result.spearman == pytest.approx(sp.spearmanr(x, y).statistic)
    assert result.spearman_p == pytest.approx(sp.spearmanr(x, y).pvalue)
    assert result.kendall == pytest.approx(sp.kendalltau(x, y).statistic)
    for ci in (result.spearman_ci, result.kendall_ci):
        assert -1.0 <= ci[0] < ci[1] <= 1.0
    assert result == rank_correlation(xs, ys, n_resamples=400, seed=5)


def test_perfect_agreement_has_a_point_interval():
    xs = {f"t{i}": float(i) for i in range(6)}
    ys = {f"t{i}": float(i * i) for i in range(6)}
    result = rank_correlation(xs, ys, n_resamples=300)
    assert result.spearman == pytest.approx(1.0) and result.kendall == pytest.approx(1.0)
    assert result.spearman_ci == pytest.approx((1.0, 1.0))


@pytest.mark.parametrize(
    ("xs", "ys", "reason"),
    [
        ({"a": 1.0, "b": 2.0}, {"a": 1.0, "b": 3.0}, "2 common"),
        ({"a": 1.0, "b": 2.0, "c": None}, {"a": 1.0, "b": 3.0, "c": 2.0}, "2 common"),
        ({"a": 1.0, "b": 2.0, "c": math.nan}, {"a": 1.0, "b": 3.0, "c": 2.0}, "2 common"),
        ({"a": 1.0, "b": 1.0, "c": 1.0}, {"a": 1.0, "b": 3.0, "c": 2.0}, "constant"),
        ({"a": 1.0, "b": 2.0, "c": 3.0}, {"a": 0.0, "b": 0.0, "c": 0.0}, "constant"),
    ],
)
def test_undefined_correlations_are_none_with_a_reason(xs, ys, reason):
    result = rank_correlation(xs, ys, n_resamples=100)
    assert result.spearman is None and result.kendall is None
    assert result.spearman_ci is None and result.kendall_ci is None
    assert reason in result.note


def test_degenerate_resamples_are_reported():
    result = rank_correlation(
        {"a": 1.0, "b": 2.0, "c": 3.0}, {"a": 1.0, "b": 3.0, "c": 2.0}, n_resamples=200
    )
    assert result.spearman == pytest.approx(0.5)
    assert "resamples" in result.note


# ------------------------------------------------ stability and sensitivity


def _recipe(rid: str, kind: str) -> Recipe:
    return Recipe(
        id=rid,
        capability_id="c",
        requirement="monotonicity",
        name=rid,
        instruction="i",
        variant_roles=["original", "perturbed"],
        relation={"kind": kind},
        rationale="r",
    )


def _run(
    rid: str, original: list[float | None], perturbed: list[float | None], verdict: str = "pass"
) -> ExecutionRecord:
    return ExecutionRecord(
        target="t",
        case_id=f"{rid}/x",
        recipe_id=rid,
        scores={"original": original, "perturbed": perturbed},
        tolerance=0.0,
        verdict=verdict,
    )


RECIPES = {
    "inv": _recipe("inv", "invariant"),
    "dec": _recipe("dec", "decrease"),
    "inc": _recipe("inc", "increase"),
    "noi": _recipe("noi", "no_increase"),
}


def test_stability_and_sensitivity_follow_the_paper_formulas():
    contract = OutputContract(min=1, max=5)  # normalised s = (raw - 1) / 4
    runs = [
        _run("inv", [5.0], [4.0]),  # s0 = 1, st = 0.75 -> 0.75
        _run("inv", [3.0, 3.0], [2.0]),  # s0 = 0.5, st = 0.25 -> 0.5
        _run("inv", [2.0], [5.0]),  # s0 = .25, st = 1 -> max(0, 1 - 3) = 0
        _run("dec", [5.0], [3.0]),  # (1 - 0.5) / 1 = 0.5
        _run("dec", [3.0], [4.0]),  # score went up: 0
        _run("dec", [5.0], [1.0], "error"),  # errors do not count
        _run("noi", [5.0], [1.0]),  # neither invariance nor degradation
        _run("inv", [None], [3.0]),  # no usable original score
    ]
    eps = 1e-6
    result = stability_sensitivity(runs, RECIPES, contract, eps=eps)
    assert result.stability_cases == 3 and result.sensitivity_cases == 2
    expected_stability = np.mean([1 - 0.25 / (1 + eps), 1 - 0.25 / (0.5 + eps), 0.0])
    assert result.stability == pytest.approx(expected_stability)
    assert result.sensitivity == pytest.approx(np.mean([0.5 / (1 + eps), 0.0]))


def test_lower_is_better_criterion_degrades_by_increase():
    contract = OutputContract(min=0, max=1, higher_is_better=False)
    runs = [_run("inc", [0.2], [0.6]), _run("dec", [0.6], [0.2])]
    result = stability_sensitivity(runs, RECIPES, contract)
    # goodness 0.8 -> 0.4: sensitivity (0.8 - 0.4) / 0.8; the 'decrease' recipe is no degradation
    assert result.sensitivity_cases == 1
    assert result.sensitivity == pytest.approx(0.5, rel=1e-5)
    assert result.stability is None and result.stability_cases == 0


# ---------------------------------------------------------- threshold sweep


def test_threshold_sensitivity_counts():
    joint_valid = {"f1": 10, "f2": 7, "f3": 6, "f4": 5, "f5": 2}
    flags = {"A": {"f1": True, "f2": False, "f3": True}, "B": {"f1": False, "f2": True}}
    rows = {row.tau: row for row in threshold_sensitivity(joint_valid, flags)}
    assert sorted(rows) == [5, 6, 7, 8, 9, 10]
    assert [rows[t].validated for t in range(5, 11)] == [4, 3, 2, 1, 1, 1]
    assert rows[5].fault_detecting == {"A": 2, "B": 1}
    assert rows[5].fault_detecting_any == 3 and rows[5].unexecuted == 1
    assert rows[7].fault_detecting == {"A": 1, "B": 1} and rows[7].fault_detecting_any == 2
    assert rows[10].fault_detecting == {"A": 1, "B": 0} and rows[10].unexecuted == 0


def test_default_taus():
    assert list(default_taus(10)) == [5, 6, 7, 8, 9, 10]
    assert list(default_taus(1)) == [1]
