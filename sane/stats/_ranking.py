"""Rank agreement between two target -> value maps, and competition ranks.

Used for the pass-rate ranking against a human benchmark (SANE paper, section 5.3) and
for the agreement of two suites' rankings (`sane compare`).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping

from pydantic import Field

from sane.stats._base import StatsModel, finite, np, sp
from sane.stats._intervals import _percentile_interval


class RankCorrelation(StatsModel):
    """Spearman and Kendall tau-b between two target -> value maps, with bootstrap intervals.

    Values are ``None`` (with ``note`` saying why) when the correlation is undefined: fewer
    than 3 common targets, or a constant side. Intervals resample targets (paired) and are
    ``None`` when no resample gives a defined value.
    """

    spearman: float | None = None
    spearman_p: float | None = None
    spearman_ci: tuple[float, float] | None = None
    kendall: float | None = None
    kendall_p: float | None = None
    kendall_ci: tuple[float, float] | None = None
    n: int = 0
    targets: list[str] = Field(default_factory=list)
    confidence: float = 0.95
    n_resamples: int = 0
    note: str | None = None


MIN_CORRELATION_TARGETS = 3


def _spearman_stat(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    """Spearman rho as Pearson on average ranks, vectorised over bootstrap resamples."""
    return sp.pearsonr(sp.rankdata(x, axis=axis), sp.rankdata(y, axis=axis), axis=axis).statistic


def _kendall_stat(x: np.ndarray, y: np.ndarray) -> float:
    return float(sp.kendalltau(x, y, variant="b").statistic)


def _paired_ci(
    x: np.ndarray,
    y: np.ndarray,
    statistic: Callable[..., float | np.ndarray],
    *,
    vectorized: bool,
    n_resamples: int,
    confidence: float,
    seed: int,
) -> tuple[tuple[float, float] | None, int]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = sp.bootstrap(
            (x, y),
            statistic,
            paired=True,
            vectorized=vectorized,
            n_resamples=n_resamples,
            confidence_level=confidence,
            method="percentile",
            rng=np.random.default_rng(seed),
        )
    interval, dropped = _percentile_interval(result.bootstrap_distribution, confidence)
    return (None if math.isnan(interval[0]) else interval), dropped


def rank_correlation(
    xs: Mapping[str, float],
    ys: Mapping[str, float],
    *,
    n_resamples: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
) -> RankCorrelation:
    """Spearman and Kendall (tau-b) over the targets both maps share, with bootstrap CIs.

    Targets missing from either side, or whose value is None / not finite, are left out.
    Never reports a fake 0: undefined cases give ``None`` values and a ``note``.
    """
    common = sorted(name for name in set(xs) & set(ys) if finite(xs[name]) and finite(ys[name]))
    base = {"n": len(common), "targets": common, "confidence": confidence}
    if len(common) < MIN_CORRELATION_TARGETS:
        return RankCorrelation(
            **base,
            note=f"undefined: {len(common)} common target(s), "
            f"need at least {MIN_CORRELATION_TARGETS}",
        )
    x = np.array([xs[name] for name in common], dtype=float)
    y = np.array([ys[name] for name in common], dtype=float)
    constant = [label for label, v in (("first", x), ("second", y)) if np.all(v == v[0])]
    if constant:
        return RankCorrelation(
            **base, note=f"undefined: constant values on the {' and '.join(constant)} side"
        )
    spearman = sp.spearmanr(x, y)
    kendall = sp.kendalltau(x, y, variant="b")
    common_kwargs = {"n_resamples": n_resamples, "confidence": confidence, "seed": seed}
    s_ci, s_drop = _paired_ci(x, y, _spearman_stat, vectorized=True, **common_kwargs)
    k_ci, k_drop = _paired_ci(x, y, _kendall_stat, vectorized=False, **common_kwargs)
    note = None
    if s_drop or k_drop:
        note = (
            f"bootstrap: {max(s_drop, k_drop)} of {n_resamples} resamples had constant "
            "values (correlation undefined) and were left out of the intervals"
        )
    return RankCorrelation(
        **base,
        spearman=float(spearman.statistic),
        spearman_p=float(spearman.pvalue),
        spearman_ci=s_ci,
        kendall=float(kendall.statistic),
        kendall_p=float(kendall.pvalue),
        kendall_ci=k_ci,
        n_resamples=n_resamples,
        note=note,
    )


def ranks(values: Mapping[str, float]) -> dict[str, int]:
    """Competition ranks, 1 = highest value; ties share the lowest rank (1, 1, 3)."""
    names = list(values)
    if not names:
        return {}
    ordinal = sp.rankdata([-float(values[n]) for n in names], method="min")
    return {name: int(rank) for name, rank in zip(names, ordinal, strict=True)}
