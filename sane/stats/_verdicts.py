"""A judge's verdicts against binary human labels: kappa, TPR/TNR with Wilson lower bounds,
certification at a bar, and the Rogan-Gladen prevalence correction.

Why: a rank correlation or an AUROC says a judge orders records like the humans do; a user
who acts on the judge's *verdicts* (pass/fail, "inconsistent") needs to know how often each
verdict is right. Peers report exactly these figures: chance-corrected agreement (Cohen's
kappa), the true-positive and true-negative rates with the lower bounds of their Wilson
intervals (a judge is *certified at b* when both lower bounds reach b: AWS's
calibrated-agent-evaluation), and the prevalence a judge's verdicts estimate corrected for its
error rates (Rogan & Gladen 1978: ``pi = (p + TNR - 1) / (TPR + TNR - 1)``).

Kappa is ``(p_o - p_e) / (1 - p_e)`` from the contingency table of
``scipy.stats.contingency.crosstab`` (weighted: ``1 - sum(w * O) / sum(w * E)`` with linear or
quadratic disagreement weights over the ordered categories, Cohen 1968). The Rogan-Gladen
interval is the delta-method one (Greiner & Gardner 2000):
``Var(pi) = [p(1-p)/n + pi^2 TPR(1-TPR)/n_pos + (1-pi)^2 TNR(1-TNR)/n_neg] / J^2`` with
``J = TPR + TNR - 1`` (Youden's J), clipped to [0, 1]; undefined when ``J <= 0`` (verdicts no
better than chance carry no information on prevalence).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from sane.stats._base import StatsModel, np, sp
from sane.stats._intervals import pass_rate_ci

Weights = Literal["linear", "quadratic"] | None


def cohen_kappa(a: Sequence[float], b: Sequence[float], *, weights: Weights = None) -> float | None:
    """Cohen's kappa of two raters' labels (weighted over ordered categories when asked).

    None where it is undefined: no record, or both raters always give one and the same label
    (chance agreement 1).
    """
    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    if x.shape != y.shape:
        raise ValueError("the two label lists need the same length")
    if x.size == 0:
        return None
    levels = np.union1d(x, y)
    table = sp.contingency.crosstab(x, y, levels=(levels, levels)).count.astype(float)
    observed = table / table.sum()
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    i, j = np.indices(table.shape)
    if weights is None:
        w = (i != j).astype(float)
    else:
        distance = np.abs(i - j) / max(len(levels) - 1, 1)
        w = distance if weights == "linear" else distance**2
    chance_disagreement = float(np.sum(w * expected))
    if chance_disagreement == 0.0:
        return None
    return 1.0 - float(np.sum(w * observed)) / chance_disagreement


class Rate(StatsModel):
    """A rate with its Wilson interval (the lower bound is what certification reads)."""

    value: float | None = None
    hits: int = 0
    n: int = 0
    ci: tuple[float, float] | None = None

    @property
    def lower(self) -> float | None:
        return None if self.ci is None else self.ci[0]


def wilson_rate(hits: int, n: int, *, confidence: float = 0.95) -> Rate:
    """``hits / n`` with its Wilson score interval; no value without a record."""
    if n == 0:
        return Rate()
    low, high = pass_rate_ci(hits, n, confidence=confidence)
    return Rate(value=hits / n, hits=hits, n=n, ci=(low, high))


class Prevalence(StatsModel):
    """The share of records a judge calls positive, and that share corrected for its errors."""

    records: int
    apparent: float
    corrected: float | None = None
    ci: tuple[float, float] | None = None
    note: str | None = None


def rogan_gladen(
    positives: int, n: int, tpr: Rate, tnr: Rate, *, confidence: float = 0.95
) -> Prevalence:
    """The Rogan-Gladen corrected prevalence of ``positives / n`` verdicts, with the delta
    method's interval (the module docstring has both formulas)."""
    if n == 0:
        raise ValueError("no verdict to correct")
    p = positives / n
    if tpr.value is None or tnr.value is None:
        return Prevalence(records=n, apparent=p, note="undefined: the labels have one class only")
    youden = tpr.value + tnr.value - 1.0
    if youden <= 0.0:
        return Prevalence(
            records=n, apparent=p, note=f"undefined: TPR + TNR - 1 = {youden:.3f} <= 0"
        )
    raw = (p + tnr.value - 1.0) / youden
    variance = (
        p * (1 - p) / n
        + raw**2 * tpr.value * (1 - tpr.value) / tpr.n
        + (1 - raw) ** 2 * tnr.value * (1 - tnr.value) / tnr.n
    ) / youden**2
    half = float(sp.norm.ppf(0.5 + confidence / 2)) * math.sqrt(variance)
    point = min(1.0, max(0.0, raw))
    ci = (min(1.0, max(0.0, raw - half)), min(1.0, max(0.0, raw + half)))
    return Prevalence(records=n, apparent=p, corrected=point, ci=ci)


class VerdictAgreement(StatsModel):
    """A target's thresholded verdicts against binary labels (positive = label 1)."""

    threshold: float
    kappa: float | None = None
    tpr: Rate = Rate()
    tnr: Rate = Rate()
    # the bar the user set (sane rank --certify-at): certified when both lower bounds reach it
    bar: float | None = None
    prevalence: Prevalence | None = None

    @property
    def certified(self) -> bool | None:
        """None without a bar; otherwise whether both Wilson lower bounds reach it."""
        if self.bar is None:
            return None
        lows = (self.tpr.lower, self.tnr.lower)
        return all(low is not None and low >= self.bar for low in lows)

    def certification(self) -> str:
        """The certification line: "certified at 0.8", or which bound falls short."""
        if self.bar is None:
            return ""
        if self.certified:
            return f"certified at {self.bar:g}"
        short = [
            f"{name} lower bound {_fmt(rate.lower)}"
            for name, rate in (("TPR", self.tpr), ("TNR", self.tnr))
            if rate.lower is None or rate.lower < self.bar
        ]
        return f"not certified at {self.bar:g} ({', '.join(short)})"


def _fmt(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3f}"


def verdict_agreement(
    scores: Sequence[float],
    labels: Sequence[float],
    *,
    threshold: float = 0.5,
    bar: float | None = None,
    confidence: float = 0.95,
) -> VerdictAgreement:
    """Verdicts ``score >= threshold`` against 0/1 labels: kappa, TPR and TNR (Wilson)."""
    s = np.asarray(scores, dtype=float)
    y = np.asarray(labels, dtype=float)
    if s.shape != y.shape:
        raise ValueError("scores and labels need the same length")
    verdicts = (s >= threshold).astype(float)
    positive, negative = y == 1, y == 0
    return VerdictAgreement(
        threshold=threshold,
        kappa=cohen_kappa(verdicts, y),
        tpr=wilson_rate(int(verdicts[positive].sum()), int(positive.sum()), confidence=confidence),
        tnr=wilson_rate(
            int((1 - verdicts[negative]).sum()), int(negative.sum()), confidence=confidence
        ),
        bar=bar,
    )
