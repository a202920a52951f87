"""The default ranking score: a scorer that never moves cannot win it."""

from __future__ import annotations

from sane.stats import CaseOutcome, balanced_score


def _cases(family: str, requirement: str, verdicts: list[bool], discriminating: bool):
    return [CaseOutcome(family, requirement, v, discriminating) for v in verdicts]


def test_only_discriminating_cases_count_and_requirements_weigh_evenly():
    # 8 invariance cases passed (a constant scorer passes them too) do not count; of the
    # discriminating ones, requirement A: families 1/2 and 1/1 -> 0.75; B: 0/2 -> 0.
    outcomes = (
        _cases("inv", "robustness", [True] * 8, False)
        + _cases("f1", "A", [True, False], True)
        + _cases("f2", "A", [True], True)
        + _cases("f3", "B", [False, False], True)
    )
    score = balanced_score(outcomes, n_resamples=200)
    assert score.value == (0.75 + 0.0) / 2
    assert (score.discriminating_cases, score.judged_cases) == (5, 13)
    assert score.constant_pass_share == 8 / 13
    assert (score.families, score.requirements) == (3, 2)
    assert score.ci[0] <= score.value <= score.ci[1]


def test_a_suite_without_discriminating_cases_cannot_rank():
    score = balanced_score(_cases("inv", "robustness", [True] * 4, False))
    assert score.value is None and "no discriminating case" in score.note
    assert score.constant_pass_share == 1.0
