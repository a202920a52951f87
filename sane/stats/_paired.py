"""Per-recipe paired one-sided t-test and standardized mean difference (scoring-rules paper, §3).

For a strategy M with original scores s_i and perturbed scores s_i^M the paper tests the
mean paired change ``Delta(M) = (1/n) sum_i (s_i^M - s_i)`` with a paired t-test, one-sided
in the direction the strategy should (degradation: < 0) or must not (manipulation: > 0)
move the score, and reports the standardized mean difference

    d_M = (mu_M - mu) / sqrt((sigma_M^2 + sigma^2) / 2)

with a 95% interval of the Cohen's-d form, ``d +- z * sqrt((n1 + n2) / (n1 n2) + d^2 /
(2 (n1 + n2)))`` with n1 = n2 = n (Hedges & Olkin's large-sample standard error).
Standard deviations are sample ones (ddof = 1).

Which side is tested follows the recipe's relation (:data:`PAIRED_EXPECTATIONS`):
``decrease`` / ``increase`` expect a significant change in their direction;
``no_increase`` / ``no_decrease`` (manipulations) fail when the change is significant in the
forbidden direction; ``invariant`` has no side, so its test is two-sided and fails when
significant.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from statistics import fmean

from sane.records import ExecutionRecord, OutputContract, PairRelation, Recipe, Verdict
from sane.relations import KINDS, Alternative
from sane.stats._base import StatsModel, np, sp
from sane.stats._profile import role_scores

PAIRED_EXPECTATIONS: dict[str, tuple[Alternative, bool]] = {
    name: kind.paired for name, kind in KINDS.items() if kind.paired is not None
}
"""Pair relation kind -> (alternative of perturbed - original, whether significance is
expected), as each kind says (`RelationKind.paired`, sane.relations)."""


class PairedTest(StatsModel):
    """One recipe's paired test on one target; None values are undefined (see ``note``).

    ``consistent`` is True when the test's outcome is what the relation expects
    (significant for decrease / increase, not significant otherwise).
    """

    relation: str
    n: int
    mean_change: float | None = None
    alternative: Alternative
    t: float | None = None
    p_value: float | None = None
    alpha: float = 0.05
    significant: bool | None = None
    expect_significant: bool
    consistent: bool | None = None
    smd: float | None = None
    smd_ci: tuple[float, float] | None = None
    note: str | None = None


def standardized_mean_difference(
    original: Sequence[float], perturbed: Sequence[float], *, confidence: float = 0.95
) -> tuple[float | None, tuple[float, float] | None]:
    """``d = (mean(perturbed) - mean(original)) / sqrt((var_p + var_o) / 2)`` and its interval.

    None when n < 2 or both sides are constant (the pooled deviation is 0).
    """
    x = np.asarray(original, dtype=float)
    y = np.asarray(perturbed, dtype=float)
    n = x.size
    if n < 2 or y.size != n:
        return None, None
    pooled = math.sqrt((float(np.var(y, ddof=1)) + float(np.var(x, ddof=1))) / 2.0)
    if pooled == 0.0:
        return None, None
    d = (float(y.mean()) - float(x.mean())) / pooled
    se = math.sqrt((n + n) / (n * n) + d * d / (2.0 * (n + n)))
    z = float(sp.norm.ppf(0.5 + confidence / 2.0))
    return d, (d - z * se, d + z * se)


def paired_test(
    original: Sequence[float],
    perturbed: Sequence[float],
    relation: str,
    *,
    alpha: float = 0.05,
) -> PairedTest:
    """``scipy.stats.ttest_rel(perturbed, original, alternative=...)`` plus the SMD.

    Undefined (None, with a note): fewer than 2 pairs; all paired differences equal
    (zero variance: the t statistic is not defined, even when the common change is not 0).
    """
    if relation not in PAIRED_EXPECTATIONS:
        raise ValueError(f"no paired test for relation {relation!r}")
    alternative, expect = PAIRED_EXPECTATIONS[relation]
    x = [float(v) for v in original]
    y = [float(v) for v in perturbed]
    if len(x) != len(y):
        raise ValueError("original and perturbed need one score each per case")
    base = {
        "relation": relation,
        "n": len(x),
        "alternative": alternative,
        "alpha": alpha,
        "expect_significant": expect,
    }
    if len(x) < 2:
        return PairedTest(
            **base,
            mean_change=fmean(b - a for a, b in zip(x, y, strict=True)) if x else None,
            note=f"undefined: {len(x)} paired case(s), need at least 2",
        )
    diffs = np.asarray(y) - np.asarray(x)
    mean_change = float(diffs.mean())
    smd, smd_ci = standardized_mean_difference(x, y)
    if np.all(diffs == diffs[0]):
        return PairedTest(
            **base,
            mean_change=mean_change,
            smd=smd,
            smd_ci=smd_ci,
            note=f"undefined t: every paired change equals {diffs[0]:g} (zero variance)",
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = sp.ttest_rel(y, x, alternative=alternative)
    p_value = float(result.pvalue)
    significant = p_value < alpha
    return PairedTest(
        **base,
        mean_change=mean_change,
        t=float(result.statistic),
        p_value=p_value,
        significant=significant,
        consistent=significant == expect,
        smd=smd,
        smd_ci=smd_ci,
    )


def recipe_paired_tests(
    executions: Iterable[ExecutionRecord],
    recipes: Mapping[str, Recipe],
    contract: OutputContract,
    *,
    alpha: float = 0.05,
) -> dict[str, PairedTest]:
    """One paired test per pair-relation recipe, over its non-error executions.

    A case's score per role is the mean of its normalised repeats.
    """
    pairs: dict[str, list[tuple[float, float]]] = {}
    for execution in executions:
        recipe = recipes.get(execution.recipe_id)
        if recipe is None or not isinstance(recipe.relation, PairRelation):
            continue
        pairs.setdefault(recipe.id, [])
        if execution.verdict is Verdict.error:
            continue
        original = role_scores(execution, recipe.relation.original, contract)
        perturbed = role_scores(execution, recipe.relation.perturbed, contract)
        if original and perturbed:
            pairs[recipe.id].append((fmean(original), fmean(perturbed)))
    return {
        rid: paired_test(
            [a for a, _ in values],
            [b for _, b in values],
            recipes[rid].relation.kind,
            alpha=alpha,
        )
        for rid, values in sorted(pairs.items())
    }
