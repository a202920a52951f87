"""A target's agreement with human labels: Spearman for graded labels, AUROC for binary ones.

This is the per-target human benchmark that `sane rank --human-data` ranks targets by
(SANE paper, section 4: judges ranked by their FaithBench AUROC; scoring-rules paper, §3:
statistical alignment as Spearman's rho between metric scores and averaged human ratings).

AUROC is computed through the Mann-Whitney U statistic:
``AUROC = U_pos / (n_pos * n_neg)``, where ``U_pos`` counts the (positive, negative) pairs the
score orders correctly, a tie counting one half (scipy.stats.mannwhitneyu's U of the first
sample). Intervals are percentile bootstraps over records (paired resampling).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from sane.stats._base import StatsModel, np, sp
from sane.stats._ranking import _paired_ci
from sane.stats._verdicts import VerdictAgreement, verdict_agreement


def auroc(scores: Sequence[float], labels: Sequence[float]) -> float | None:
    """Area under the ROC curve of ``scores`` for ``labels`` in {0, 1}; None without both classes."""
    s = np.asarray(scores, dtype=float)
    y = np.asarray(labels, dtype=float)
    if s.shape != y.shape:
        raise ValueError("scores and labels need the same length")
    if not np.all((y == 0) | (y == 1)):
        raise ValueError("binary labels must be 0 or 1")
    positive, negative = s[y == 1], s[y == 0]
    if positive.size == 0 or negative.size == 0:
        return None
    u = sp.mannwhitneyu(positive, negative, alternative="two-sided").statistic
    return float(u) / (positive.size * negative.size)


def _auroc_stat(s: np.ndarray, y: np.ndarray) -> float:
    value = auroc(s, y)
    return math.nan if value is None else value


def _spearman_stat(s: np.ndarray, y: np.ndarray) -> float:
    if np.all(s == s[0]) or np.all(y == y[0]):
        return math.nan
    return float(sp.spearmanr(s, y).statistic)


MEASURES = {"auroc": _auroc_stat, "spearman": _spearman_stat}


class LabelAgreement(StatsModel):
    """One target's agreement with the labels; None (with ``note``) when undefined."""

    measure: Literal["auroc", "spearman"]
    value: float | None = None
    ci: tuple[float, float] | None = None
    n: int = 0
    positives: int | None = None
    note: str | None = None
    # graded labels: Kendall's tau-b beside Spearman's rho (ties are common in ratings)
    kendall: float | None = None
    # binary labels: the thresholded verdicts' kappa, TPR/TNR and certification
    verdicts: VerdictAgreement | None = None


def label_agreement(
    scores: Sequence[float],
    labels: Sequence[float],
    *,
    binary: bool,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    threshold: float = 0.5,
    bar: float | None = None,
) -> LabelAgreement:
    """AUROC (``binary``) or Spearman's rho of scores against labels, with a bootstrap CI.

    Binary labels also get the verdicts ``score >= threshold`` compared with them
    (:func:`sane.stats.verdict_agreement`: kappa, TPR/TNR, certification at ``bar``);
    graded labels also get Kendall's tau-b.
    """
    measure: Literal["auroc", "spearman"] = "auroc" if binary else "spearman"
    s = np.asarray(scores, dtype=float)
    y = np.asarray(labels, dtype=float)
    if s.shape != y.shape:
        raise ValueError("scores and labels need the same length")
    positives = int(np.sum(y == 1)) if binary else None
    base: dict = {"measure": measure, "n": int(s.size), "positives": positives}
    if binary and s.size:
        base["verdicts"] = verdict_agreement(s, y, threshold=threshold, bar=bar)
    if s.size < 2:
        return LabelAgreement(**base, note=f"undefined: {s.size} labelled record(s)")
    statistic = MEASURES[measure]
    value = statistic(s, y)
    if math.isnan(value):
        why = "one class only" if binary else "constant scores or labels"
        return LabelAgreement(**base, note=f"undefined: {why}")
    ci, _ = _paired_ci(
        s,
        y,
        statistic,
        vectorized=False,
        n_resamples=n_resamples,
        confidence=confidence,
        seed=seed,
    )
    if not binary:
        base["kendall"] = float(sp.kendalltau(s, y).statistic)
    return LabelAgreement(**base, value=value, ci=ci)


class RankingReliability(StatsModel):
    """How reliably the labels themselves order the targets: split the labelled records
    into two random halves, measure every target's agreement on each half, and take
    Spearman's rho between the two halves' orderings; repeated over ``splits`` splits.

    A suite's rank correlation with the human benchmark can only be read against this: a
    benchmark whose halves disagree about the order of the targets cannot confirm or
    refute a suite's order (too few labels, or targets closer together than the labels can
    tell). It is a lower bound of the full set's reliability (each half has half the
    records); ``full`` is the Spearman-Brown step-up of the median, ``2r / (1 + r)`` (the
    median itself when it is not above 0). Complementary halves of one data set pull apart
    when the targets are closer than the labels can tell, so such targets can get a median
    below 0: read it as no reliability."""

    median: float
    interval: tuple[float, float]
    full: float
    splits: int
    targets: int
    records: int

    def sentence(self) -> str:
        """One line for every format: what a suite's rank correlation is read against."""
        low, high = self.interval
        return (
            f"the labels order these {self.targets} targets with split-half reliability "
            f"{self.median:+.2f} [{low:+.2f}, {high:+.2f}] (Spearman between the orders on two "
            f"random halves of {self.records} records, {self.splits} splits; stepped up to the "
            f"whole set {self.full:+.2f}): a suite's correlation with this benchmark cannot be "
            "read as higher than that"
        )


def ranking_reliability(
    scores: dict[str, Sequence[float]],
    labels: Sequence[float],
    *,
    binary: bool,
    splits: int = 200,
    confidence: float = 0.95,
    seed: int = 0,
) -> RankingReliability | None:
    """The split-half reliability of the targets' order by agreement with ``labels``.

    ``scores`` maps each target to its scores of the same records as ``labels`` (records a
    target failed are left out by the caller for every target alike). None with fewer than
    three targets or four records: no order to compare."""
    y = np.asarray(labels, dtype=float)
    table = np.asarray([np.asarray(v, dtype=float) for v in scores.values()])
    if len(scores) < 3 or y.size < 4 or table.shape[1] != y.size:
        return None
    statistic = MEASURES["auroc" if binary else "spearman"]
    rng = np.random.default_rng(seed)
    half = y.size // 2
    rhos: list[float] = []
    for _ in range(splits):
        order = rng.permutation(y.size)
        sides = [
            [statistic(row[part], y[part]) for row in table]
            for part in (order[:half], order[half:])
        ]
        if any(math.isnan(v) for side in sides for v in side):
            continue  # a half with one class only, or a target constant on it
        rho = float(sp.spearmanr(*sides).statistic)
        if not math.isnan(rho):
            rhos.append(rho)
    if not rhos:
        return None
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(rhos, [tail, 100 - tail])
    median = float(np.median(rhos))
    return RankingReliability(
        median=median,
        interval=(float(low), float(high)),
        full=2 * median / (1 + median) if median > 0 else median,
        splits=len(rhos),
        targets=len(scores),
        records=int(y.size),
    )
