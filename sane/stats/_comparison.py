"""Paired comparison of two targets on the cases both judged, and ranks that do not overclaim.

Why paired: when judge-v2 arrives, the question is whether it passes more of the *same*
cases than judge-v1, not whether two intervals computed apart happen to overlap. On the
shared cases each pair of verdicts is one of four cells (both pass, only A passes, only B
passes, both fault); only the two discordant cells say anything about the difference.

- **McNemar's exact test**: under "A and B pass equally often", a discordant case is
  equally likely to favour either, so the count favouring A is Binomial(b + c, 1/2); the
  p-value is the two-sided binomial test (scipy ``binomtest``). Exact, so it holds at the
  small counts suites have.
- **Paired difference** of the pass rates, ``(b - c) / n``, with a percentile bootstrap
  interval over the shared cases (resampled as pairs). Where the bootstrap degenerates
  (every case's difference equal, e.g. no discordant case) the interval is Newcombe's
  (1998, method 10, built from the two Wilson intervals and their correlation), which has
  width there: 0 differences on 20 cases never reads as "certainly equal".
- **Holm's correction** over every pair a report tests, so that ten judges (45 pairs) do
  not find differences by chance.
- **Ranks**: a target's rank is 1 + the number of targets that pass significantly more
  often (Holm-adjusted p < ``ALPHA`` and a higher pass rate on the shared cases). Targets
  no test separates share a rank. Without paired cases (a slice two targets never shared)
  two targets are separated only when their Wilson intervals do not overlap.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import ClassVar, Protocol, Self

from sane.stats._base import StatsModel, np, sp
from sane.stats._intervals import bootstrap_ci, pass_rate_ci

ALPHA = 0.05


class SidedComparison(StatsModel):
    """What every paired comparison of two targets does the same way, whatever it compares:
    which of the two is significantly better, and the comparison seen from the other side
    (the fields in `SIDES` trade places, the difference and its interval change sign). A
    subclass declares `a`, `b`, `difference`, `difference_ci` and `significant`."""

    SIDES: ClassVar[tuple[tuple[str, str], ...]] = (("only_a_passes", "only_b_passes"),)

    @property
    def better(self) -> str | None:
        """The target significantly better, if any."""
        side = vars(self)
        if not side["significant"] or not side["difference"]:
            return None
        return side["a"] if side["difference"] > 0 else side["b"]

    def seen_from(self, a: str) -> Self:
        """The same comparison with ``a`` first (differences change sign)."""
        side = vars(self)
        if a == side["a"]:
            return self
        difference, interval = side["difference"], side["difference_ci"]
        update = {"a": side["b"], "b": side["a"]}
        for one, other in self.SIDES:
            update |= {one: side[other], other: side[one]}
        update["difference"] = None if difference is None else -difference
        update["difference_ci"] = None if interval is None else (-interval[1], -interval[0])
        return self.model_copy(update=update)


class PairedComparison(SidedComparison):
    """Target ``a`` against target ``b`` on the cases both judged (errors left out)."""

    a: str
    b: str
    cases: int = 0
    both_pass: int = 0
    only_a_passes: int = 0
    only_b_passes: int = 0
    both_fault: int = 0
    pass_rate_a: float | None = None
    pass_rate_b: float | None = None
    difference: float | None = None  # pass_rate_a - pass_rate_b on the shared cases
    difference_ci: tuple[float, float] | None = None
    difference_ci_method: str | None = None  # "bootstrap" or "newcombe"
    p_value: float | None = None  # McNemar exact, two-sided
    p_adjusted: float | None = None  # Holm, over the pairs tested together
    significant: bool = False
    note: str | None = None

    SIDES: ClassVar[tuple[tuple[str, str], ...]] = (
        ("only_a_passes", "only_b_passes"),
        ("pass_rate_a", "pass_rate_b"),
    )


def _newcombe(both: int, only_a: int, only_b: int, neither: int, confidence: float):
    """Newcombe's (1998) method 10 interval for a paired difference of proportions."""
    n = both + only_a + only_b + neither
    p1, p2 = (both + only_a) / n, (both + only_b) / n
    l1, u1 = pass_rate_ci(both + only_a, n, confidence=confidence)
    l2, u2 = pass_rate_ci(both + only_b, n, confidence=confidence)
    margins = (both + only_a) * (only_b + neither) * (both + only_b) * (only_a + neither)
    phi = (both * neither - only_a * only_b) / math.sqrt(margins) if margins else 0.0
    low = (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2
    high = (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2
    delta = p1 - p2
    return (
        max(-1.0, delta - math.sqrt(max(low, 0.0))),
        min(1.0, delta + math.sqrt(max(high, 0.0))),
    )


def paired_comparison(
    a: str,
    a_passed: Mapping[str, bool],
    b: str,
    b_passed: Mapping[str, bool],
    *,
    n_resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> PairedComparison:
    """``a_passed`` and ``b_passed`` map case id -> passed (judged cases only)."""
    shared = sorted(set(a_passed) & set(b_passed))
    if not shared:
        return PairedComparison(a=a, b=b, note="no case judged by both")
    cells = {(x, y): 0 for x in (True, False) for y in (True, False)}
    for case in shared:
        cells[(a_passed[case], b_passed[case])] += 1
    both, only_a = cells[(True, True)], cells[(True, False)]
    only_b, neither = cells[(False, True)], cells[(False, False)]
    n = len(shared)
    differences = [int(a_passed[c]) - int(b_passed[c]) for c in shared]
    interval, method = None, None
    if n >= 2:
        low, high = bootstrap_ci(
            differences, np.mean, n_resamples=n_resamples, confidence=confidence, seed=seed
        )
        interval, method = ((low, high), "bootstrap") if high > low else (None, None)
    if interval is None:
        interval, method = _newcombe(both, only_a, only_b, neither, confidence), "newcombe"
    discordant = only_a + only_b
    p_value = float(sp.binomtest(only_a, discordant, 0.5).pvalue) if discordant else 1.0
    return PairedComparison(
        a=a,
        b=b,
        cases=n,
        both_pass=both,
        only_a_passes=only_a,
        only_b_passes=only_b,
        both_fault=neither,
        pass_rate_a=(both + only_a) / n,
        pass_rate_b=(both + only_b) / n,
        difference=(only_a - only_b) / n,
        difference_ci=interval,
        difference_ci_method=method,
        p_value=p_value,
        p_adjusted=p_value,
        significant=p_value < ALPHA,
    )


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjusted p-values (None stays None and is not counted)."""
    present = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    adjusted: list[float | None] = [None] * len(p_values)
    running = 0.0
    for k, (p, i) in enumerate(present):
        running = max(running, min(1.0, (len(present) - k) * p))
        adjusted[i] = running
    return adjusted


def comparisons(
    passed: Mapping[str, Mapping[str, bool]],
    *,
    n_resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> list[PairedComparison]:
    """Every pair of targets (in the order given), Holm-adjusted together."""
    names = list(passed)
    pairs = [
        paired_comparison(
            a, passed[a], b, passed[b], n_resamples=n_resamples, confidence=confidence, seed=seed
        )
        for i, a in enumerate(names)
        for b in names[i + 1 :]
    ]
    adjusted = holm([c.p_value if c.cases else None for c in pairs])
    return [
        c.model_copy(update={"p_adjusted": p, "significant": p is not None and p < ALPHA})
        if c.cases
        else c
        for c, p in zip(pairs, adjusted, strict=True)
    ]


class Tested(Protocol):
    """A paired test between two targets, as the ranks read it: McNemar's on pass rates
    (PairedComparison) or the sign-flip test on default scores (ScoreComparison)."""

    a: str
    b: str
    cases: int

    @property
    def better(self) -> str | None: ...


def _disjoint_above(upper: tuple[float, float], lower: tuple[float, float]) -> bool:
    return upper[0] > lower[1]


def significance_ranks(
    rates: Mapping[str, float],
    tested: Sequence[Tested] = (),
    intervals: Mapping[str, tuple[float, float]] | None = None,
) -> dict[str, int]:
    """Rank = 1 + the number of targets significantly better (see the module docstring).

    ``rates`` names the targets ranked (their values do not enter: ``tested`` decides). A pair
    with shared cases is decided by its paired test; a pair without, by whether
    their ``intervals`` (Wilson) are disjoint; a pair with neither is never separated."""
    by_pair = {frozenset((c.a, c.b)): c for c in tested if c.cases}
    intervals = intervals or {}

    def beats(x: str, y: str) -> bool:
        pair = by_pair.get(frozenset((x, y)))
        if pair is not None:
            return pair.better == x
        if x in intervals and y in intervals:
            return _disjoint_above(intervals[x], intervals[y])
        return False

    return {y: 1 + sum(beats(x, y) for x in rates if x != y) for y in rates}
