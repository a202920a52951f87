"""The seeds' statistics against values computed independently (scipy or by hand)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sp

from sane.records import ExecutionRecord, OutputContract, Recipe
from sane.stats import (
    auroc,
    bootstrap_ci,
    configuration_sensitivity,
    label_agreement,
    ordering_stats,
    paired_test,
    pass_rate_bootstrap_ci,
    profile_mae,
    rank_correlation,
    recipe_ordering,
    recipe_paired_tests,
    repeat_run_variability,
    requirement_profile,
    standardized_mean_difference,
)

CONTRACT = OutputContract(min=0.0, max=1.0)


def _recipe(rid: str, requirement: str, relation: dict, roles=("original", "perturbed")) -> Recipe:
    return Recipe(
        id=rid,
        capability_id="cap-1",
        requirement=requirement,
        name=rid,
        instruction="i",
        variant_roles=list(roles),
        relation=relation,
        rationale="r",
    )


def _run(rid: str, case: str, verdict: str = "pass", **normalised: list[float]) -> ExecutionRecord:
    return ExecutionRecord(
        target="T",
        case_id=case,
        recipe_id=rid,
        scores=normalised,
        normalised=normalised,
        tolerance=0.05,
        verdict=verdict,
    )


# ------------------------------------------------------------ paired test, SMD

ORIGINAL = [0.8, 0.6, 0.9, 0.7, 0.75]
PERTURBED = [0.5, 0.55, 0.6, 0.4, 0.7]


def test_paired_test_is_scipys_one_sided_ttest_rel():
    result = paired_test(ORIGINAL, PERTURBED, "decrease")
    expected = sp.ttest_rel(PERTURBED, ORIGINAL, alternative="less")
    assert result.t == pytest.approx(expected.statistic)
    assert result.p_value == pytest.approx(expected.pvalue)
    assert result.alternative == "less" and result.significant and result.consistent
    diffs = np.array(PERTURBED) - np.array(ORIGINAL)
    assert result.mean_change == pytest.approx(diffs.mean())
    # by hand: t = mean(d) / (sd(d) / sqrt(n))
    assert result.t == pytest.approx(diffs.mean() / (diffs.std(ddof=1) / math.sqrt(5)))


def test_manipulation_relations_fail_when_the_forbidden_change_is_significant():
    inflated = paired_test(PERTURBED, ORIGINAL, "no_increase")
    assert inflated.alternative == "greater" and inflated.significant
    assert inflated.consistent is False
    invariant = paired_test(ORIGINAL, PERTURBED, "invariant")
    assert invariant.alternative == "two-sided"
    assert invariant.p_value == pytest.approx(sp.ttest_rel(PERTURBED, ORIGINAL).pvalue)


def test_smd_and_its_interval_by_hand():
    x, y = np.array(ORIGINAL), np.array(PERTURBED)
    d = (y.mean() - x.mean()) / math.sqrt((y.var(ddof=1) + x.var(ddof=1)) / 2)
    se = math.sqrt(2 / 5 + d * d / 20)
    value, (low, high) = standardized_mean_difference(ORIGINAL, PERTURBED)
    assert value == pytest.approx(d)
    assert low == pytest.approx(d - 1.959963984540054 * se)
    assert high == pytest.approx(d + 1.959963984540054 * se)


def test_paired_test_degenerate_cases_are_undefined_not_zero():
    single = paired_test([0.5], [0.4], "decrease")
    assert single.t is None and single.p_value is None and "need at least 2" in single.note
    shifted = paired_test([0.5, 0.7, 0.9], [0.4, 0.6, 0.8], "decrease")
    assert shifted.t is None and shifted.consistent is None
    assert shifted.mean_change == pytest.approx(-0.1) and "zero variance" in shifted.note
    constant = standardized_mean_difference([0.5, 0.5], [0.5, 0.5])
    assert constant == (None, None)


def test_recipe_paired_tests_skip_errors_and_other_relations():
    recipes = {
        "deg": _recipe("deg", "monotonicity", {"kind": "decrease"}),
        "rep": _recipe("rep", "repeatability", {"kind": "repeatable"}, roles=("original",)),
    }
    runs = [
        _run("deg", f"deg/{i}", original=[o], perturbed=[p])
        for i, (o, p) in enumerate(zip(ORIGINAL, PERTURBED, strict=True))
    ]
    runs.append(_run("deg", "deg/err", verdict="error", original=[0.0], perturbed=[1.0]))
    runs.append(_run("rep", "rep/0", original=[0.5, 0.5, 0.5]))
    tests = recipe_paired_tests(runs, recipes, CONTRACT)
    assert set(tests) == {"deg"} and tests["deg"].n == 5
    assert tests["deg"].p_value == pytest.approx(
        paired_test(ORIGINAL, PERTURBED, "decrease").p_value
    )


# ------------------------------------------------------------------ ordering


def test_ordering_accuracy_and_inverted_level_pairs_by_hand():
    levels = ["low", "mid", "high"]
    cases = [
        {"low": 0.1, "mid": 0.5, "high": 0.9},  # 3 of 3 pairs ordered
        {"low": 0.3, "mid": 0.3, "high": 0.2},  # a tie and two inversions: 0 of 3
    ]
    stats = ordering_stats(levels, cases)
    assert (stats.pairs, stats.correct, stats.ties) == (6, 3, 1)
    assert stats.accuracy == 0.5
    assert stats.level_means == pytest.approx({"low": 0.2, "mid": 0.4, "high": 0.55})
    assert stats.inverted_count == 0 and stats.level_pairs == 3

    flat = ordering_stats(levels, [{"low": 0.5, "mid": 0.5, "high": 0.4}])
    # mu(mid) <= mu(low) counts as a violation (CAP C.1), as do the two with high
    assert flat.inverted == [("low", "mid"), ("low", "high"), ("mid", "high")]
    assert flat.violation_rate == 1.0 and flat.accuracy == 0.0


def test_ordering_of_no_case_is_undefined():
    stats = ordering_stats(["a", "b"], [])
    assert stats.accuracy is None and stats.violation_rate is None


def test_recipe_ordering_reads_ordered_series_only():
    recipes = {
        "ord": _recipe(
            "ord", "calibration", {"kind": "ordered", "series": ["l0", "l1"]}, roles=("l0", "l1")
        )
    }
    runs = [_run("ord", "ord/0", l0=[0.2, 0.4], l1=[0.6]), _run("ord", "ord/1", l0=[0.7], l1=[0.5])]
    stats = recipe_ordering(runs, recipes, CONTRACT)["ord"]
    assert stats.level_means == pytest.approx({"l0": (0.3 + 0.7) / 2, "l1": 0.55})
    assert (stats.correct, stats.pairs) == (1, 2)


# ------------------------------------------------------------------ AUROC


def test_auroc_by_hand_including_ties():
    assert auroc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]) == 0.75
    # positives [0.5, 0.9] vs negatives [0.5, 0.5]: two ties (1/2 each) and two wins
    assert auroc([0.5, 0.5, 0.5, 0.9], [0, 1, 0, 1]) == 0.75
    assert auroc([0.3, 0.2], [1, 1]) is None
    with pytest.raises(ValueError):
        auroc([0.3, 0.2], [1, 2])


def test_label_agreement_matches_scipy_and_has_an_interval():
    rng = np.random.default_rng(0)
    labels = rng.normal(size=40)
    scores = labels + rng.normal(scale=0.8, size=40)
    result = label_agreement(scores, labels, binary=False, n_resamples=300)
    assert result.value == pytest.approx(sp.spearmanr(scores, labels).statistic)
    assert result.ci[0] < result.value < result.ci[1]
    binary = label_agreement(scores, (labels > 0).astype(float), binary=True, n_resamples=300)
    positives = scores[labels > 0]
    negatives = scores[labels <= 0]
    by_pairs = np.mean(
        [[1.0 if p > n else 0.5 if p == n else 0.0 for n in negatives] for p in positives]
    )
    assert binary.value == pytest.approx(by_pairs)
    assert label_agreement([0.2, 0.2, 0.2], [1, 0, 1], binary=False).value is None


# ------------------------------------------------------------------ profiles


RECIPES = {
    "r1": _recipe("r1", "monotonicity", {"kind": "decrease"}),
    "r2": _recipe("r2", "monotonicity", {"kind": "invariant"}),
    "r3": _recipe("r3", "robustness", {"kind": "invariant"}),
    "r4": _recipe("r4", "repeatability", {"kind": "repeatable"}, roles=("original",)),
}


def test_requirement_profile_averages_recipes_not_cases():
    runs = [
        _run("r1", "r1/0", original=[0.9], perturbed=[0.5]),
        _run("r1", "r1/1", original=[0.8], perturbed=[0.6]),
        _run("r2", "r2/0", original=[0.5], perturbed=[0.6]),
        _run("r3", "r3/0", original=[0.5], perturbed=[0.5]),
        _run("r4", "r4/0", original=[0.1, 0.9, 0.5]),
        _run("r3", "r3/1", verdict="error", original=[0.0], perturbed=[1.0]),
    ]
    profile = requirement_profile(runs, RECIPES, CONTRACT)
    assert profile.by_recipe == pytest.approx({"r1": -0.3, "r2": 0.1, "r3": 0.0})
    # Delta_a = mean of its recipes' Delta_t: (-0.3 + 0.1) / 2, not (-0.4 - 0.2 + 0.1) / 3
    assert profile.by_requirement == pytest.approx({"monotonicity": -0.1, "robustness": 0.0})
    assert profile.cases == {"r1": 2, "r2": 1, "r3": 1}


def test_profile_mae_by_hand_and_with_an_empty_requirement():
    distance = profile_mae(
        {"monotonicity": -0.1, "robustness": 0.0, "calibration": 0.2},
        {"monotonicity": -0.3, "robustness": 0.05, "dynamic_range": None},
    )
    assert distance.mae == pytest.approx((0.2 + 0.05) / 2)
    assert distance.only_in_a == ["calibration"] and distance.only_in_b == []
    disjoint = profile_mae({"monotonicity": 0.1}, {"robustness": 0.1})
    assert disjoint.mae is None and disjoint.note.startswith("undefined")
    assert profile_mae({}, {}).mae is None


def test_repeat_run_variability_is_the_std_of_run_level_profiles():
    runs = [
        _run("r1", "r1/0", original=[0.9, 0.9, 0.8], perturbed=[0.5, 0.7, 0.5]),
        _run("r1", "r1/1", original=[0.8, 0.6, 0.8], perturbed=[0.6, 0.6, 0.4]),
        _run("r3", "r3/0", original=[0.5, 0.5, 0.5], perturbed=[0.5, 0.4, 0.6]),
        _run("r4", "r4/0", original=[0.1, 0.9]),  # repeatable: not a run
    ]
    result = repeat_run_variability(runs, RECIPES, CONTRACT)
    run_means = [((-0.4) + (-0.2)) / 2, ((-0.2) + 0.0) / 2, ((-0.3) + (-0.4)) / 2]
    assert result["monotonicity"].means == pytest.approx(run_means)
    assert result["monotonicity"].std == pytest.approx(np.std(run_means, ddof=1))
    assert result["robustness"].std == pytest.approx(np.std([0.0, -0.1, 0.1], ddof=1))
    single = [_run("r1", "r1/0", original=[0.9], perturbed=[0.5])]
    assert repeat_run_variability(single, RECIPES, CONTRACT) == {}


def test_configuration_sensitivity_spread_across_a_group():
    result = configuration_sensitivity(
        {"judge": ["t0", "t1", "t2"], "solo": ["x"]},
        {
            "t0": {"monotonicity": -0.3},
            "t1": {"monotonicity": -0.1},
            "t2": {},
            "x": {"robustness": 0.0},
        },
        {"t0": 0.8, "t1": 0.6, "t2": None, "x": 0.5},
    )
    judge = result["judge"]
    assert judge.pass_rate.mean == pytest.approx(0.7) and judge.pass_rate.n == 2
    assert judge.pass_rate.std == pytest.approx(np.std([0.8, 0.6], ddof=1))
    assert judge.by_requirement["monotonicity"].std == pytest.approx(np.std([-0.3, -0.1], ddof=1))
    assert result["solo"].pass_rate.std is None  # one configuration has no spread


# --------------------------------------------------------- rankings, intervals


def test_rank_correlation_with_ties_matches_scipy():
    xs = {"a": 0.9, "b": 0.7, "c": 0.7, "d": 0.2, "e": 0.5}
    ys = {"a": 0.8, "b": 0.8, "c": 0.6, "d": 0.1, "e": 0.3}
    names = sorted(xs)
    result = rank_correlation(xs, ys, n_resamples=200)
    x = [xs[n] for n in names]
    y = [ys[n] for n in names]
    assert result.spearman == pytest.approx(sp.spearmanr(x, y).statistic)
    assert result.kendall == pytest.approx(sp.kendalltau(x, y, variant="b").statistic)


def test_rank_correlation_degenerate_targets():
    equal = rank_correlation({"a": 0.5, "b": 0.5, "c": 0.5}, {"a": 1, "b": 2, "c": 3})
    assert equal.spearman is None and equal.kendall is None and "constant" in equal.note
    single = rank_correlation({"a": 0.5}, {"a": 1.0})
    assert single.spearman is None and single.n == 1


def test_pass_rate_bootstrap_ci():
    assert pass_rate_bootstrap_ci(0, 0) is None
    assert pass_rate_bootstrap_ci(0, 6) == (0.0, 0.0)
    assert pass_rate_bootstrap_ci(4, 4) == (1.0, 1.0)
    low, high = pass_rate_bootstrap_ci(7, 10, n_resamples=500, seed=1)
    assert (low, high) == bootstrap_ci([1] * 7 + [0] * 3, np.mean, n_resamples=500, seed=1)
    assert low < 0.7 < high
