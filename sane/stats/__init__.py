"""Statistics the report offers: intervals, rank agreement, behavioral profile, seeds' tests.

Why a package of its own: every number the report prints about uncertainty, agreement or
behaviour comes from here, built on scipy so that the estimators are the well-known ones,
and with the degenerate cases (no data, one target, constant input) answered explicitly
(None or NaN with a note) instead of with a made-up 0.

Sources (formulas in each module's docstring and in docs/statistics.md):

- rank agreement with a human benchmark, the pass-rate span: SANE paper, section 5.3
  (:mod:`._ranking`); per-target agreement with human labels (:mod:`._agreement`);
- threshold sensitivity of validated / fault-detecting family counts: SANE appendix C
  (:mod:`._threshold`);
- stability and sensitivity, requirement-level profiles and their MAE across suites:
  behavioral-correctness paper, sections 3.4 and 3.6 (:mod:`._stability`, :mod:`._profile`);
- repeat-run variability and configuration sensitivity: the same paper, section 3.6
  (:mod:`._variability`);
- per-recipe paired one-sided t-test and standardized mean difference: scoring-rules paper,
  section 3 (:mod:`._paired`);
- pairwise ordering accuracy and inverted class pairs: CAP paper, section 6.2
  (:mod:`._ordering`);
- the default ranking score, the balanced pass rate over the cases a scorer that never
  moves would fail (:mod:`._discriminating`; issue 51, behavioral-correctness paper 3.4),
  and the paired sign-flip test of two targets' default scores that the ranks rest on
  (:mod:`._balanced_comparison`);
- a judge's verdicts against binary labels: Cohen's kappa, TPR/TNR with Wilson lower bounds,
  certification at a bar, the Rogan-Gladen corrected prevalence (:mod:`._verdicts`);
- paired comparison of two targets (McNemar exact, paired difference), Holm-adjusted,
  and the ranks built on it: standard methods, not from the seeds (:mod:`._comparison`).
"""

from sane.stats._agreement import (
    LabelAgreement,
    RankingReliability,
    auroc,
    label_agreement,
    ranking_reliability,
)
from sane.stats._balanced_comparison import (
    ScoreComparison,
    balanced_comparison,
    balanced_comparisons,
    sign_flip_p,
)
from sane.stats._base import NAN_CI, StatsModel
from sane.stats._comparison import (
    PairedComparison,
    comparisons,
    paired_comparison,
    significance_ranks,
)
from sane.stats._discriminating import BalancedScore, CaseOutcome, balanced_score
from sane.stats._intervals import bootstrap_ci, pass_rate_bootstrap_ci, pass_rate_ci
from sane.stats._ordering import OrderingStats, ordering_stats, recipe_ordering
from sane.stats._paired import (
    PAIRED_EXPECTATIONS,
    PairedTest,
    paired_test,
    recipe_paired_tests,
    standardized_mean_difference,
)
from sane.stats._pairwise import PairwiseAgreement, pairwise_agreement, verdict_of
from sane.stats._profile import (
    ProfileDistance,
    RequirementProfile,
    case_change,
    change_roles,
    profile_mae,
    requirement_profile,
    role_scores,
)
from sane.stats._ranking import MIN_CORRELATION_TARGETS, RankCorrelation, rank_correlation, ranks
from sane.stats._stability import (
    StabilitySensitivity,
    goodness_pair,
    is_degradation,
    is_invariance,
    sensitivity_score,
    stability_score,
    stability_sensitivity,
)
from sane.stats._threshold import ThresholdRow, default_taus, threshold_sensitivity
from sane.stats._variability import (
    ConfigSensitivity,
    RunVariability,
    Spread,
    configuration_sensitivity,
    repeat_run_variability,
    spread,
)
from sane.stats._verdicts import (
    Prevalence,
    Rate,
    VerdictAgreement,
    cohen_kappa,
    rogan_gladen,
    verdict_agreement,
    wilson_rate,
)

__all__ = [
    "MIN_CORRELATION_TARGETS",
    "NAN_CI",
    "PAIRED_EXPECTATIONS",
    "BalancedScore",
    "CaseOutcome",
    "ConfigSensitivity",
    "LabelAgreement",
    "OrderingStats",
    "PairedComparison",
    "PairedTest",
    "PairwiseAgreement",
    "Prevalence",
    "ProfileDistance",
    "RankCorrelation",
    "RankingReliability",
    "Rate",
    "RequirementProfile",
    "RunVariability",
    "ScoreComparison",
    "Spread",
    "StabilitySensitivity",
    "StatsModel",
    "ThresholdRow",
    "VerdictAgreement",
    "auroc",
    "balanced_comparison",
    "balanced_comparisons",
    "balanced_score",
    "bootstrap_ci",
    "case_change",
    "change_roles",
    "cohen_kappa",
    "comparisons",
    "configuration_sensitivity",
    "default_taus",
    "goodness_pair",
    "is_degradation",
    "is_invariance",
    "label_agreement",
    "ordering_stats",
    "paired_comparison",
    "paired_test",
    "pairwise_agreement",
    "pass_rate_bootstrap_ci",
    "pass_rate_ci",
    "profile_mae",
    "rank_correlation",
    "ranking_reliability",
    "ranks",
    "recipe_ordering",
    "recipe_paired_tests",
    "repeat_run_variability",
    "requirement_profile",
    "rogan_gladen",
    "role_scores",
    "sensitivity_score",
    "sign_flip_p",
    "significance_ranks",
    "spread",
    "stability_score",
    "stability_sensitivity",
    "standardized_mean_difference",
    "threshold_sensitivity",
    "verdict_agreement",
    "verdict_of",
    "wilson_rate",
]
