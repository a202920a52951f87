"""Paired comparison of two targets' default scores, and the ranks that rest on it.

Why: the ranking is ordered by the default score (sane.stats._discriminating: a scorer that
never moves gets 0.5), so its ranks must claim no more than the cases show, as the pass-rate
ranks do with McNemar's test. On the cases both targets judged, the difference of their
default scores is a weighted sum of the cases' paired verdicts:

    D = sum_i w_i (a_i - b_i),   w_i = 1 / (C * R_c * F_cr * n_f)

for case i of family f of requirement r in class c ("moves": a scorer that never moves fails
it; "holds": it passes it), with C classes, R_c requirements in class c, F_cr families of r in
c and n_f shared cases of f: the default score's own weights, on the shared cases. Only the
discordant cases (one target passes, the other fails) move D.

- **Test**: a paired sign-flip (randomisation) test. Under "the two targets' verdicts are
  exchangeable on every case" each discordant case favours either with probability 1/2,
  independently, so D's null distribution is that of ``sum_i s_i w_i`` over the discordant
  cases, ``s_i`` fair +-1 coins; two-sided p = P(|D*| >= |D|). Computed exactly (integer
  weights over a common denominator, convolved weight by weight), or, only where the exact
  distribution would hold more than ``EXACT_LIMIT`` values, by a seeded Monte Carlo of
  ``MONTE_CARLO_DRAWS`` draws, ``(1 + hits) / (1 + draws)``. Where every case weighs the same
  (one family) it is McNemar's exact test, the pass-rate ranks' test. Chosen over a bootstrap
  p-value because it is exact at the small counts suites have (a few families of a few cases),
  where a bootstrap's tails are not to be trusted.
- **Interval** of D: percentile bootstrap, paired (both targets' verdicts on the same
  resampled cases), in two stages: families within class and requirement, then cases within
  each family, so that a requirement of one family still has width; None where every
  resample gives the same difference (no width to show: the test decides).
- Holm's correction over every pair a ranking tests (:func:`balanced_comparisons`); a target's
  rank is 1 + the number of targets whose default score is significantly higher
  (sane.stats._comparison.significance_ranks).

A case is classed for each target (a level case, `at_level`, discriminates for a target only
where it would fail it by staying at its own level: sane.relations.discriminates); a shared
case the two targets class apart has no one weight in D, and is left out of the comparison
(counted in ``classed_apart``).

Undefined (no p-value, with a note) where the two targets share no judged case, or no case a
scorer that never moves fails: there the default score itself is undefined.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import ClassVar

from sane.stats._base import np
from sane.stats._comparison import ALPHA, SidedComparison, holm
from sane.stats._discriminating import CaseOutcome
from sane.stats._intervals import _percentile_interval

# the most values the exact null distribution may hold before a Monte Carlo replaces it
EXACT_LIMIT = 50_000
MONTE_CARLO_DRAWS = 20_000


class ScoreComparison(SidedComparison):
    """Target ``a``'s default score against target ``b``'s, on the cases both judged."""

    a: str
    b: str
    cases: int = 0  # judged by both and classed alike for both (compared)
    classed_apart: int = 0  # judged by both, classed apart (a level case): left out
    discriminating_cases: int = 0  # of those, the ones a scorer that never moves fails
    only_a_passes: int = 0
    only_b_passes: int = 0
    score_a: float | None = None  # default scores on the shared cases
    score_b: float | None = None
    difference: float | None = None  # score_a - score_b
    difference_ci: tuple[float, float] | None = None  # paired bootstrap; None: it collapses
    p_value: float | None = None  # paired sign-flip test, two-sided
    p_method: str | None = None  # "exact" or "monte carlo"
    p_adjusted: float | None = None  # Holm, over the pairs tested together
    significant: bool = False
    note: str | None = None

    SIDES: ClassVar[tuple[tuple[str, str], ...]] = (
        ("only_a_passes", "only_b_passes"),
        ("score_a", "score_b"),
    )


# class (discriminating?) -> requirement -> family -> [(a passed, b passed), ...]
_Shared = dict[bool, dict[str, dict[str, list[tuple[bool, bool]]]]]


def _weights(shared: _Shared) -> dict[tuple[bool, str, str], Fraction]:
    """Each family's weight per case: the default score's weighting on the shared cases."""
    weights = {}
    for c, by_requirement in shared.items():
        for r, families in by_requirement.items():
            for f, pairs in families.items():
                denominator = len(shared) * len(by_requirement) * len(families) * len(pairs)
                weights[(c, r, f)] = Fraction(1, denominator)
    return weights


def _monte_carlo_p(weights: Sequence[int], observed: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    w = np.asarray(weights, dtype=float)
    tolerance = 1e-9 * float(w.sum())
    hits, left = 0, MONTE_CARLO_DRAWS
    while left:
        size = min(left, 5000)
        signs = rng.integers(0, 2, size=(size, len(w))) * 2 - 1
        hits += int(np.count_nonzero(np.abs(signs @ w) >= observed - tolerance))
        left -= size
    return (1 + hits) / (1 + MONTE_CARLO_DRAWS)


def sign_flip_p(weights: Sequence[Fraction], signs: Sequence[int], *, seed: int = 0):
    """Two-sided p-value of the weighted sign-flip test and how it was computed: ``weights``
    of the discordant cases, ``signs`` +1 where the first target passes (module docstring)."""
    if not weights:
        return 1.0, "exact"
    denominator = math.lcm(*(w.denominator for w in weights))
    ints = [int(w * denominator) for w in weights]
    observed = abs(sum(i * s for i, s in zip(ints, signs, strict=True)))
    counts: dict[int, int] = {0: 1}  # null sum -> number of the 2^n sign patterns giving it
    for weight, m in sorted(Counter(ints).items()):
        if len(counts) * (m + 1) > EXACT_LIMIT:
            return _monte_carlo_p(ints, observed, seed), "monte carlo"
        grown: dict[int, int] = defaultdict(int)
        for k in range(m + 1):
            ways, shift = math.comb(m, k), weight * (2 * k - m)
            for total, n in counts.items():
                grown[total + shift] += n * ways
        counts = grown
    hits = sum(n for total, n in counts.items() if abs(total) >= observed)
    return min(1.0, hits / 2 ** len(ints)), "exact"


def _bootstrap(shared: _Shared, n_resamples: int, confidence: float, seed: int):
    """Percentile interval of the paired difference: families resampled within class and
    requirement, then cases within each family (two stages, so that a requirement of one
    family still has width: its cases vary)."""
    rng = np.random.default_rng(seed)
    halves = []
    for by_requirement in shared.values():
        per_requirement = []
        for families in by_requirement.values():
            # per family, the mean paired difference over a resample of its cases, per draw
            means = np.stack(
                [
                    np.asarray([a - b for a, b in pairs], dtype=float)[
                        rng.integers(0, len(pairs), size=(n_resamples, len(pairs)))
                    ].mean(axis=1)
                    for pairs in families.values()
                ],
                axis=1,
            )
            picks = rng.integers(0, means.shape[1], size=means.shape)
            per_requirement.append(np.take_along_axis(means, picks, axis=1).mean(axis=1))
        halves.append(np.mean(per_requirement, axis=0))
    interval, _ = _percentile_interval(np.mean(halves, axis=0), confidence)
    # a collapsed interval (every resample the same) would claim certainty: none is given
    return interval if interval[1] > interval[0] else None


def balanced_comparison(
    a: str,
    a_outcomes: Sequence[CaseOutcome],
    b: str,
    b_outcomes: Sequence[CaseOutcome],
    *,
    n_resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> ScoreComparison:
    """``a`` against ``b`` on the cases both judged (paired by ``CaseOutcome.case``)."""
    by_case = {o.case: o for o in b_outcomes}
    shared_cases = [(o, by_case[o.case]) for o in a_outcomes if o.case in by_case]
    pairs = [(x, y) for x, y in shared_cases if x.discriminating == y.discriminating]
    apart = len(shared_cases) - len(pairs)
    if not pairs:
        note = "no case judged by both" if not shared_cases else "no shared case classed alike"
        return ScoreComparison(a=a, b=b, classed_apart=apart, note=note)
    shared: _Shared = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for mine, theirs in sorted(pairs, key=lambda p: p[0].case):
        shared[mine.discriminating][mine.requirement][mine.family].append(
            (mine.passed, theirs.passed)
        )
    base = {
        "cases": len(pairs),
        "classed_apart": apart,
        "discriminating_cases": sum(o.discriminating for o, _ in pairs),
        "only_a_passes": sum(x.passed and not y.passed for x, y in pairs),
        "only_b_passes": sum(y.passed and not x.passed for x, y in pairs),
    }
    if True not in shared:
        return ScoreComparison(
            a=a, b=b, **base, note="undefined: no discriminating case judged by both"
        )
    weights = _weights(shared)
    score_a = score_b = Fraction(0)
    discordant: list[Fraction] = []
    signs: list[int] = []
    for (c, r, f), w in weights.items():
        for x, y in shared[c][r][f]:
            score_a += w * x
            score_b += w * y
            if x != y:
                discordant.append(w)
                signs.append(1 if x else -1)
    p_value, method = sign_flip_p(discordant, signs, seed=seed)
    return ScoreComparison(
        a=a,
        b=b,
        **base,
        score_a=float(score_a),
        score_b=float(score_b),
        difference=float(score_a - score_b),
        difference_ci=_bootstrap(shared, n_resamples, confidence, seed),
        p_value=p_value,
        p_method=method,
        p_adjusted=p_value,
        significant=p_value < ALPHA,
    )


def balanced_comparisons(
    outcomes: Mapping[str, Sequence[CaseOutcome]],
    *,
    n_resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> list[ScoreComparison]:
    """Every pair of targets (in the order given), Holm-adjusted together."""
    names = list(outcomes)
    pairs = [
        balanced_comparison(
            a,
            outcomes[a],
            b,
            outcomes[b],
            n_resamples=n_resamples,
            confidence=confidence,
            seed=seed,
        )
        for i, a in enumerate(names)
        for b in names[i + 1 :]
    ]
    adjusted = holm([c.p_value for c in pairs])
    return [
        c if p is None else c.model_copy(update={"p_adjusted": p, "significant": p < ALPHA})
        for c, p in zip(pairs, adjusted, strict=True)
    ]
