"""Intervals: percentile bootstrap, the Wilson interval of a pass rate, a bootstrap over cases.

Why both for pass rates: the Wilson interval stays informative at 0/n and n/n, where a
percentile bootstrap collapses to a zero-width interval; the bootstrap over cases is the
interval the SANE paper's ranking reports (section 5.3), so the report offers both.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence

from sane.stats._base import NAN_CI, np, sp


def bootstrap_ci(
    values: Sequence[float],
    statistic: Callable[..., float],
    *,
    n_resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``statistic`` over ``values`` (scipy.stats.bootstrap).

    ``statistic`` takes a 1-D array; if it accepts an ``axis`` keyword (numpy reductions do)
    scipy calls it vectorised. Degenerate inputs are answered explicitly:

    - empty ``values`` -> ``(nan, nan)``: there is nothing to estimate;
    - a single value -> ``(nan, nan)``: one observation carries no information on spread;
    - all values equal (n >= 2) -> ``(s, s)`` with ``s = statistic(values)``: every
      resample is the same sample, so the percentile interval collapses to the point
      (a known weakness of the percentile bootstrap; use :func:`pass_rate_ci` for rates);
    - a statistic that is not finite on the data -> ``(nan, nan)``.

    Resamples on which the statistic is undefined (nan) are dropped before taking the
    percentiles; if none remain the answer is ``(nan, nan)``.
    """
    data = np.asarray(list(values), dtype=float)
    if data.size < 2:
        return NAN_CI
    point = float(statistic(data))
    if not math.isfinite(point):
        return NAN_CI
    if np.all(data == data[0]):
        return (point, point)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = sp.bootstrap(
            (data,),
            statistic,
            n_resamples=n_resamples,
            confidence_level=confidence,
            method="percentile",
            rng=np.random.default_rng(seed),
        )
    return _percentile_interval(result.bootstrap_distribution, confidence)[0]


def _percentile_interval(
    distribution: np.ndarray, confidence: float
) -> tuple[tuple[float, float], int]:
    """Percentile interval of a bootstrap distribution, ignoring undefined resamples.

    Returns the interval and how many resamples were dropped as undefined.
    """
    dist = np.asarray(distribution, dtype=float).ravel()
    finite = dist[np.isfinite(dist)]
    dropped = int(dist.size - finite.size)
    if finite.size == 0:
        return NAN_CI, dropped
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(finite, [alpha, 1.0 - alpha])
    return (float(low), float(high)), dropped


def pass_rate_ci(
    passes: int, total: int, *, confidence: float = 0.95, method: str = "wilson"
) -> tuple[float, float]:
    """Wilson score interval for a pass rate ``passes / total`` (scipy binomtest).

    Wilson rather than a bootstrap over cases because it stays informative at 0/n and n/n,
    where a percentile bootstrap collapses to a zero-width interval. ``method`` is passed to
    ``scipy.stats.binomtest(...).proportion_ci`` (``wilson``, ``wilsoncc`` or ``exact``).
    ``total == 0`` -> ``(nan, nan)``: no judged case, no rate.
    """
    if total < 0 or passes < 0 or passes > total:
        raise ValueError(f"need 0 <= passes <= total, got passes={passes}, total={total}")
    if total == 0:
        return NAN_CI
    ci = sp.binomtest(passes, total).proportion_ci(confidence_level=confidence, method=method)
    return (float(ci.low), float(ci.high))


def pass_rate_bootstrap_ci(
    passes: int,
    total: int,
    *,
    n_resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[float, float] | None:
    """Percentile bootstrap interval of ``passes / total``, resampling the judged cases.

    ``None`` without a judged case. At 0/n and n/n every resample has the same rate, so
    the interval is the point itself: read it together with the Wilson interval.
    """
    if total < 0 or passes < 0 or passes > total:
        raise ValueError(f"need 0 <= passes <= total, got passes={passes}, total={total}")
    if total == 0:
        return None
    if total == 1:
        rate = float(passes)
        return (rate, rate)
    verdicts = np.zeros(total)
    verdicts[:passes] = 1.0
    return bootstrap_ci(
        verdicts, np.mean, n_resamples=n_resamples, confidence=confidence, seed=seed
    )
