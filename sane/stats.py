"""Statistics the report offers: intervals, rank agreement, behavioral profile, threshold sweep.

Why a module of its own: every number the report prints about uncertainty or
agreement comes from here, built on scipy so that the estimators are the
well-known ones, and with the degenerate cases (no data, one target, constant
input) answered explicitly instead of with a made-up 0.

Sources (DESIGN section 8):

- rank agreement with a human benchmark and the pass-rate span: SANE paper, section 5.3;
- threshold sensitivity of validated / fault-detecting family counts: SANE paper, appendix C;
- stability and sensitivity: behavioral-correctness paper, section 3.4 —
  ``stability = mean max(0, 1 - |s_t - s_0| / (s_0 + eps))`` over invariance cases and
  ``sensitivity = mean max(0, s_0 - s_t) / (s_0 + eps)`` over degradation cases.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from statistics import fmean

import numpy as np
from pydantic import BaseModel, ConfigDict
from scipy import stats as sp

from sane.records import ExecutionRecord, OutputContract, PairRelation, Recipe, Verdict

NAN_CI: tuple[float, float] = (math.nan, math.nan)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


# ------------------------------------------------------------------ intervals


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


# --------------------------------------------------------------- rank agreement


class RankCorrelation(_Model):
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
    targets: list[str] = []
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
    common = sorted(name for name in set(xs) & set(ys) if _finite(xs[name]) and _finite(ys[name]))
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


def _finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)


# ----------------------------------------------------- stability and sensitivity


class StabilitySensitivity(_Model):
    """Behavioral-correctness summary of one target (paper section 3.4).

    Scores are normalised to [0, 1] and oriented so that higher means better on the
    criterion ("goodness"). ``None`` when the target has no usable case of that kind.
    """

    stability: float | None = None
    stability_cases: int = 0
    sensitivity: float | None = None
    sensitivity_cases: int = 0
    eps: float = 1e-6


def stability_score(original: float, perturbed: float, eps: float = 1e-6) -> float:
    """``max(0, 1 - |s_t - s_0| / (s_0 + eps))`` for one invariance case."""
    return max(0.0, 1.0 - abs(perturbed - original) / (original + eps))


def sensitivity_score(original: float, perturbed: float, eps: float = 1e-6) -> float:
    """``max(0, s_0 - s_t) / (s_0 + eps)`` for one degradation case."""
    return max(0.0, original - perturbed) / (original + eps)


def is_degradation(relation: object, *, criterion_higher_is_better: bool) -> bool:
    """A pair relation that expects the input to get worse on the criterion.

    Relation kinds are about raw scores, so for a lower-is-better criterion (toxicity) a
    degradation is an expected ``increase``.
    """
    if not isinstance(relation, PairRelation):
        return False
    worse = "decrease" if criterion_higher_is_better else "increase"
    return relation.kind == worse


def is_invariance(relation: object) -> bool:
    return isinstance(relation, PairRelation) and relation.kind == "invariant"


def goodness_pair(
    execution: ExecutionRecord, relation: PairRelation, contract: OutputContract
) -> tuple[float, float] | None:
    """(original, perturbed) normalised goodness of one execution; None if unusable.

    Repeats are averaged; ``None`` repeats are ignored. Uses the record's ``normalised``
    scores when present, otherwise normalises the raw scores with ``contract``.
    """
    pair = []
    for role in (relation.original, relation.perturbed):
        normalised = [v for v in execution.normalised.get(role, []) if v is not None]
        if not normalised:
            raw = [v for v in execution.scores.get(role, []) if v is not None]
            normalised = [contract.normalise(v) for v in raw]
        if not normalised:
            return None
        value = fmean(normalised)
        pair.append(value if contract.higher_is_better else 1.0 - value)
    return pair[0], pair[1]


def stability_sensitivity(
    executions: Iterable[ExecutionRecord],
    recipes: Mapping[str, Recipe],
    contract: OutputContract,
    *,
    criterion_higher_is_better: bool | None = None,
    eps: float = 1e-6,
) -> StabilitySensitivity:
    """Stability over invariance cases and sensitivity over degradation cases of one target.

    Only executions with a pass or fault verdict count (an error has no trustworthy
    scores). ``contract`` is the target's output contract; ``criterion_higher_is_better``
    is the direction the recipes' relations were written in (defaults to the contract's).
    """
    direction = criterion_higher_is_better
    if direction is None:
        direction = contract.higher_is_better
    stab: list[float] = []
    sens: list[float] = []
    for execution in executions:
        recipe = recipes.get(execution.recipe_id)
        if recipe is None or execution.verdict is Verdict.error:
            continue
        relation = recipe.relation
        invariance = is_invariance(relation)
        degradation = is_degradation(relation, criterion_higher_is_better=direction)
        if not (invariance or degradation):
            continue
        pair = goodness_pair(execution, relation, contract)  # type: ignore[arg-type]
        if pair is None:
            continue
        if invariance:
            stab.append(stability_score(*pair, eps=eps))
        else:
            sens.append(sensitivity_score(*pair, eps=eps))
    return StabilitySensitivity(
        stability=fmean(stab) if stab else None,
        stability_cases=len(stab),
        sensitivity=fmean(sens) if sens else None,
        sensitivity_cases=len(sens),
        eps=eps,
    )


# ------------------------------------------------------------ threshold sweep


class ThresholdRow(_Model):
    """Family counts had the validation threshold been ``tau`` (SANE appendix C).

    ``fault_detecting`` counts, per target, families validated at ``tau`` whose executed
    cases include a fault; ``fault_detecting_any`` counts families fault-detecting for at
    least one target. ``unexecuted`` families are validated at ``tau`` but have no
    execution flags (they were below the suite's own threshold and never run), so the
    fault-detecting counts at that ``tau`` are lower bounds when it is non-zero.
    """

    tau: int
    validated: int
    fault_detecting: dict[str, int]
    fault_detecting_any: int
    unexecuted: int


def threshold_sensitivity(
    joint_valid: Mapping[str, int],
    fault_detecting: Mapping[str, Mapping[str, bool]],
    *,
    taus: Iterable[int] = range(5, 11),
) -> list[ThresholdRow]:
    """Validated and fault-detecting family counts for each ``tau``.

    ``joint_valid`` maps family (recipe) id -> joint-valid case count; ``fault_detecting``
    maps target -> family id -> whether that target faulted on one of the family's cases.
    A family absent from every target's map counts as unexecuted.
    """
    targets = sorted(fault_detecting)
    executed = {family for flags in fault_detecting.values() for family in flags}
    rows = []
    for tau in taus:
        validated = [family for family, count in joint_valid.items() if count >= tau]
        per_target = {
            target: sum(bool(fault_detecting[target].get(family)) for family in validated)
            for target in targets
        }
        any_target = sum(
            any(fault_detecting[target].get(family) for target in targets) for family in validated
        )
        rows.append(
            ThresholdRow(
                tau=tau,
                validated=len(validated),
                fault_detecting=per_target,
                fault_detecting_any=any_target,
                unexecuted=sum(family not in executed for family in validated),
            )
        )
    return rows


def default_taus(cases_per_recipe: int) -> range:
    """floor(n/2) .. n: from a bare half to all cases (5..10 for the default n = 10)."""
    return range(max(1, cases_per_recipe // 2), max(1, cases_per_recipe) + 1)
