"""Ordered-class monotonicity of graded series (CAP paper, section 6.2 and appendix C.1).

A recipe with an ``ordered`` relation lists its variants from the lowest to the highest
target level; each case is one realisation of the series.

- **Pairwise ordering accuracy** ``PairAcc = E_(a,b) [ 1{ m(a) > m(b) } ]`` over the pairs of
  variants of one case whose levels are strictly ordered (a above b). A tie counts as not
  ordered, as in the paper (random baseline 0.5); ties are also reported.
- **Inverted class pairs**: with mu(c) the mean score of level c over the recipe's cases, a
  pair of levels c_i above c_j is a violation if ``mu(c_i) <= mu(c_j)``; the violation rate is
  the count over the number of level pairs.

Scores are the normalised scores in the spec's direction (the space relations use), each
variant's repeats averaged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations
from statistics import fmean

from pydantic import Field

from sane.records import ExecutionRecord, OutputContract, Recipe, Verdict
from sane.relations import kind_of
from sane.stats._base import StatsModel
from sane.stats._profile import role_scores


class OrderingStats(StatsModel):
    """Pairwise ordering accuracy and inverted level pairs of one recipe on one target."""

    levels: list[str]
    cases: int = 0
    pairs: int = 0
    correct: int = 0
    ties: int = 0
    accuracy: float | None = None
    level_means: dict[str, float] = Field(default_factory=dict)
    level_pairs: int = 0
    inverted: list[tuple[str, str]] = Field(default_factory=list)
    inverted_count: int = 0
    violation_rate: float | None = None


def ordering_stats(levels: Sequence[str], cases: Iterable[Mapping[str, float]]) -> OrderingStats:
    """Statistics of graded series; ``cases`` map level -> score (levels low to high).

    A case missing a level contributes only the pairs it has. Undefined values are None.
    """
    levels = list(levels)
    pairs = correct = ties = n_cases = 0
    by_level: dict[str, list[float]] = {level: [] for level in levels}
    for case in cases:
        n_cases += 1
        for level in levels:
            if level in case:
                by_level[level].append(float(case[level]))
        for low, high in combinations(levels, 2):
            if low in case and high in case:
                pairs += 1
                correct += case[high] > case[low]
                ties += case[high] == case[low]
    means = {level: fmean(v) for level, v in by_level.items() if v}
    level_pairs = [(lo, hi) for lo, hi in combinations(levels, 2) if lo in means and hi in means]
    inverted = [(lo, hi) for lo, hi in level_pairs if means[hi] <= means[lo]]
    return OrderingStats(
        levels=levels,
        cases=n_cases,
        pairs=pairs,
        correct=correct,
        ties=ties,
        accuracy=correct / pairs if pairs else None,
        level_means=means,
        level_pairs=len(level_pairs),
        inverted=inverted,
        inverted_count=len(inverted),
        violation_rate=len(inverted) / len(level_pairs) if level_pairs else None,
    )


def recipe_ordering(
    executions: Iterable[ExecutionRecord],
    recipes: Mapping[str, Recipe],
    contract: OutputContract,
) -> dict[str, OrderingStats]:
    """Ordering statistics per ``ordered`` recipe over its non-error executions."""
    series: dict[str, list[dict[str, float]]] = {}
    for execution in executions:
        recipe = recipes.get(execution.recipe_id)
        levels = _series(recipe)
        if recipe is None or levels is None:
            continue
        series.setdefault(recipe.id, [])
        if execution.verdict is Verdict.error:
            continue
        case = {}
        for level in levels:
            values = role_scores(execution, level, contract)
            if values:
                case[level] = fmean(values)
        series[recipe.id].append(case)
    return {
        rid: ordering_stats(_series(recipes[rid]) or [], cases)
        for rid, cases in sorted(series.items())
    }


def _series(recipe: Recipe | None) -> list[str] | None:
    """The recipe's graded series, where its relation kind has one (sane.relations)."""
    if recipe is None:
        return None
    kind = kind_of(recipe.relation)
    return kind.series(recipe.relation) if kind.series is not None else None
