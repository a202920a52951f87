"""Relation checks on hand-made score tables: every kind, ties, exact tolerance, errors."""

from __future__ import annotations

import math

import pytest

from sane.records import (
    AtLevelRelation,
    CombinedRelation,
    OrderedRelation,
    PairRelation,
    RepeatableRelation,
    SpansRelation,
    Verdict,
)
from sane.relations import KINDS, check_relation

TOL = 0.05
P, F, E = Verdict.passed, Verdict.fault, Verdict.error


def pair(kind: str, s0: float, s1: float, tol: float = TOL, hib: bool = True) -> Verdict:
    result = check_relation(
        PairRelation(kind=kind), {"original": [s0], "perturbed": [s1]}, tol, hib
    )
    return result.verdict


def test_every_relation_kind_has_a_checker() -> None:
    kinds = {"decrease", "increase", "no_increase", "no_decrease", "invariant"}
    kinds |= {"repeatable", "combined", "ordered", "spans", "at_level"}
    assert kinds <= set(KINDS)


@pytest.mark.parametrize(
    ("kind", "s0", "s1", "expected"),
    [
        ("decrease", 0.8, 0.4, P),
        ("decrease", 0.8, 0.78, F),  # within noise
        ("decrease", 0.4, 0.8, F),
        ("decrease", 0.5, 0.5, F),  # tie
        ("increase", 0.4, 0.8, P),
        ("increase", 0.8, 0.4, F),
        ("increase", 0.5, 0.5, F),
        ("no_increase", 0.8, 0.4, P),
        ("no_increase", 0.5, 0.5, P),
        ("no_increase", 0.4, 0.8, F),
        ("no_decrease", 0.4, 0.8, P),
        ("no_decrease", 0.5, 0.5, P),
        ("no_decrease", 0.8, 0.4, F),
        ("invariant", 0.5, 0.53, P),
        ("invariant", 0.5, 0.47, P),
        ("invariant", 0.5, 0.6, F),
        ("invariant", 0.5, 0.4, F),
    ],
)
def test_pair_kinds(kind: str, s0: float, s1: float, expected: Verdict) -> None:
    assert pair(kind, s0, s1) == expected


@pytest.mark.parametrize(
    ("kind", "s0", "s1", "expected"),
    [
        # differences exactly equal to the tolerance count as within tolerance
        ("invariant", 0.8, 0.75, P),
        ("invariant", 0.75, 0.8, P),
        ("decrease", 0.8, 0.75, F),
        ("increase", 0.75, 0.8, F),
        ("no_increase", 0.75, 0.8, P),
        ("no_decrease", 0.8, 0.75, P),
        # and just beyond it does not
        ("invariant", 0.8, 0.7499, F),
        ("decrease", 0.8, 0.7499, P),
        ("no_decrease", 0.8, 0.7499, F),
    ],
)
def test_exactly_at_tolerance(kind: str, s0: float, s1: float, expected: Verdict) -> None:
    assert pair(kind, s0, s1) == expected


def test_pair_kinds_stay_in_raw_direction_when_lower_is_better() -> None:
    # a toxicity scorer (lower is better) must *increase* when insults are added
    assert pair("increase", 0.1, 0.9, hib=False) == P
    assert pair("increase", 0.9, 0.1, hib=False) == F
    assert pair("decrease", 0.9, 0.1, hib=False) == P


def test_pair_detail_reports_the_evidence() -> None:
    result = check_relation(
        PairRelation(kind="decrease"), {"original": [0.8], "perturbed": [0.4]}, TOL, True
    )
    assert "perturbed 0.40 vs original 0.80" in result.detail
    assert "dropped 0.40 > tol 0.05" in result.detail


def test_pair_uses_mean_of_repeats() -> None:
    scores = {"original": [0.6, 1.0], "perturbed": [0.4, 0.6]}  # means 0.8 and 0.5
    result = check_relation(PairRelation(kind="decrease"), scores, 0.25, True)
    assert result.verdict == P
    result = check_relation(PairRelation(kind="decrease"), scores, 0.35, True)
    assert result.verdict == F


def test_custom_role_names() -> None:
    relation = PairRelation(kind="decrease", original="clean", perturbed="noisy")
    result = check_relation(relation, {"clean": [0.9], "noisy": [0.2]}, TOL, True)
    assert result.verdict == P and "noisy 0.20 vs clean 0.90" in result.detail


# ---------------------------------------------------------------- repeatable


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([0.5, 0.5, 0.5], P),
        ([0.5, 0.52, 0.48], P),
        ([0.5, 0.55, 0.5], P),  # spread exactly tol
        ([0.5, 0.75, 0.5], F),
        ([0.0, 1.0], F),
    ],
)
def test_repeatable(values: list[float], expected: Verdict) -> None:
    result = check_relation(RepeatableRelation(), {"original": values}, TOL, True)
    assert result.verdict == expected


def test_repeatable_needs_two_repeats() -> None:
    result = check_relation(RepeatableRelation(), {"original": [0.5]}, TOL, True)
    assert result.verdict == E and "original" in result.detail


# ------------------------------------------------------------------ combined


def combined(s0: float, sa: float, sb: float, sab: float, hib: bool = True) -> Verdict:
    scores = {"original": [s0], "edit_a": [sa], "edit_b": [sb], "edit_ab": [sab]}
    return check_relation(CombinedRelation(), scores, TOL, hib).verdict


def test_combined_subadditive_passes() -> None:
    assert combined(1.0, 0.7, 0.6, 0.4) == P
    # combined penalty equal to the sum of single penalties is fine
    assert combined(1.0, 0.8, 0.8, 0.6) == P


def test_combined_above_single_degradation_is_a_fault() -> None:
    assert combined(1.0, 0.6, 0.5, 0.7) == F


def test_combined_penalty_beyond_sum_is_a_fault() -> None:
    # each edit costs 0.1, together they cost 0.5 > 0.2 + tol
    assert combined(1.0, 0.9, 0.9, 0.5) == F


def test_combined_flips_for_lower_is_better() -> None:
    # raw scores of a toxicity-like scorer: degradations raise the score
    assert combined(0.0, 0.3, 0.4, 0.6, hib=False) == P
    assert combined(0.0, 0.4, 0.5, 0.3, hib=False) == F  # A+B less bad than either
    # the same raw table read with higher-is-better is a fault
    assert combined(0.0, 0.3, 0.4, 0.6, hib=True) == F


def test_combined_exactly_at_tolerance() -> None:
    assert combined(1.0, 0.6, 0.7, 0.65) == P  # gAB == min + tol
    assert combined(1.0, 0.6, 0.7, 0.66) == F


# ------------------------------------------------------------------- ordered


def ordered(values: list[float], min_accuracy: float = 1.0) -> tuple[Verdict, str]:
    roles = [f"level{i}" for i in range(len(values))]
    result = check_relation(
        OrderedRelation(series=roles, min_accuracy=min_accuracy),
        {role: [v] for role, v in zip(roles, values, strict=True)},
        TOL,
        True,
    )
    return result.verdict, result.detail


def test_ordered_monotone_series_passes() -> None:
    assert ordered([0.1, 0.4, 0.7, 0.9])[0] == P


def test_ordered_ties_and_small_dips_pass() -> None:
    assert ordered([0.5, 0.5, 0.5])[0] == P
    assert ordered([0.5, 0.45, 0.8])[0] == P  # dip exactly tol


def test_ordered_inversion_reports_accuracy_and_pairs() -> None:
    verdict, detail = ordered([0.1, 0.7, 0.4, 0.9])
    assert verdict == F
    assert "5/6" in detail and "0.83" in detail
    assert "level1 0.70 > level2 0.40" in detail


def test_ordered_min_accuracy_threshold() -> None:
    assert ordered([0.1, 0.7, 0.4, 0.9], min_accuracy=0.8)[0] == P
    assert ordered([0.1, 0.7, 0.4, 0.9], min_accuracy=0.9)[0] == F
    assert ordered([0.9, 0.6, 0.1], min_accuracy=0.5)[0] == F  # fully reversed: 0/3


# --------------------------------------------------------------------- spans


@pytest.mark.parametrize(
    ("values", "fraction", "expected"),
    [
        ([0.1, 0.5, 0.9], 0.5, P),
        ([0.4, 0.5, 0.6], 0.5, F),
        ([0.2, 0.7], 0.5, P),  # exactly the fraction
        ([0.9, 0.1], 0.5, P),  # range, not order
    ],
)
def test_spans(values: list[float], fraction: float, expected: Verdict) -> None:
    roles = [f"l{i}" for i in range(len(values))]
    result = check_relation(
        SpansRelation(series=roles, min_fraction=fraction),
        {role: [v] for role, v in zip(roles, values, strict=True)},
        TOL,
        True,
    )
    assert result.verdict == expected


# ------------------------------------------------------------------ at_level


@pytest.mark.parametrize(
    ("value", "expected"),
    [(0.8, P), (0.7, P), (0.65, P), (0.649, F), (0.1, F), (0.95, P)],
)
def test_at_level(value: float, expected: Verdict) -> None:
    relation = AtLevelRelation(variant="toxic", low=0.7, high=0.9)
    assert check_relation(relation, {"toxic": [value]}, TOL, False).verdict == expected


# -------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("scores", "role"),
    [
        ({"original": [0.5]}, "perturbed"),
        ({"original": [0.5], "perturbed": []}, "perturbed"),
        ({"original": [None], "perturbed": [0.5]}, "original"),
        ({"original": [0.5], "perturbed": [math.nan]}, "perturbed"),
        ({"original": [math.inf], "perturbed": [0.5]}, "original"),
        ({"original": [0.5], "perturbed": [0.4, None]}, "perturbed"),
        ({"original": [3.0], "perturbed": [0.5]}, "original"),  # not normalised
    ],
)
@pytest.mark.parametrize("kind", ["decrease", "no_increase", "invariant"])
def test_unusable_scores_are_errors(
    kind: str, scores: dict[str, list[float | None]], role: str
) -> None:
    result = check_relation(PairRelation(kind=kind), scores, TOL, True)
    assert result.verdict == E
    assert role in result.detail


def test_errors_for_series_and_combined_name_the_role() -> None:
    scores = {"original": [1.0], "edit_a": [0.5], "edit_b": [math.nan], "edit_ab": [0.2]}
    result = check_relation(CombinedRelation(), scores, TOL, True)
    assert result.verdict == E and "edit_b" in result.detail
    result = check_relation(OrderedRelation(series=["a", "b"]), {"a": [0.1]}, TOL, True)
    assert result.verdict == E and "'b'" in result.detail
    result = check_relation(AtLevelRelation(variant="x"), {"x": [None]}, TOL, True)
    assert result.verdict == E


@pytest.mark.parametrize("tol", [math.nan, -0.1, math.inf])
def test_invalid_tolerance_is_an_error(tol: float) -> None:
    result = check_relation(
        PairRelation(kind="invariant"), {"original": [0.5], "perturbed": [0.5]}, tol, True
    )
    assert result.verdict == E
