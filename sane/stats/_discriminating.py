"""A ranking score no null scorer can win: the balanced accuracy of a target over the cases
that need it to move and the cases that need it to hold still.

Why: the raw pass rate counts every judged case alike, so a suite made mostly of invariance
and no-increase tests (an operator grid: 7 of 9 code edits change nothing that matters to a
faithfulness criterion) rewards not moving; a constant scorer passed 0.912 of such a suite and
ranked second of ten (issue 51). The behavioral-correctness paper (section 3.4) makes the same
point: its most stable metric was its least sensitive, so stability alone is not reliability.
Counting only the cases a constant scorer fails is no cure either: a scorer that moves at
random passes about half of those, and ranked first of ten by that score on both suites of
`benchmarks/bench_ranking.py`.

So the cases fall in two classes, decided by the relation itself
(`sane.relations.discriminates`: does a scorer that gives every variant the same score fail
it?):

- **moves**: the case needs the scores to differ (decrease, increase, `spans`); a scorer that
  never moves fails it;
- **holds**: a scorer that never moves passes it (invariance, no increase / no decrease,
  `ordered` and `combined`, which pass ties, `repeatable`); a scorer that moves at random
  fails it often.

A level case (`at_level`) is passed by a scorer that never moves only where its level lies in
the band, so the caller classes it for each target, at the target's own level
(sane.reporting._planted.discriminating): `CaseOutcome.discriminating` is per target.

Within each class every requirement weighs evenly and every family (recipe) evenly within its
requirement, so one large family does not decide the rank; the score is the mean of the two
classes' balanced pass rates, the balanced accuracy of the target's verdicts:

    half(c) = mean over requirements r of ( mean over families f of r, in c, of passes_f / judged_f )
    score   = ( half(moves) + half(holds) ) / 2

A scorer that never moves gets half(moves) = 0 and half(holds) = 1, so 0.5 (chance), whatever
the suite's mix; one that moves at random gets about half of the first and less than all of
the second. Interval: percentile bootstrap over families, resampled within each class and
requirement, then over cases within each family (2000 resamples, seeded; two stages, so that
a requirement of one family still has width). Undefined (None, with a note) without a "moves"
case: such a suite cannot tell a judge from a constant scorer. Without a "holds" case the
score is half(moves) alone (noted).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from sane.stats._base import StatsModel, np
from sane.stats._intervals import _percentile_interval


@dataclass(frozen=True)
class CaseOutcome:
    """One judged case of one target: its family, requirement, verdict, and whether a scorer
    that never moves would fail it (a discriminating case: the "moves" class); ``case`` is its
    id, which pairs two targets' verdicts on the same case (sane.stats._balanced_comparison)."""

    family: str
    requirement: str
    passed: bool
    discriminating: bool
    case: str = ""


class BalancedScore(StatsModel):
    """The default ranking score of one target, with what it rests on."""

    value: float | None = None
    ci: tuple[float, float] | None = None
    # the two classes' balanced pass rates: cases a never-moving scorer fails / passes
    moves: float | None = None
    holds: float | None = None
    discriminating_cases: int = 0
    judged_cases: int = 0
    families: int = 0
    requirements: int = 0
    # share of the judged cases a scorer that never moves passes (the non-discriminating ones)
    constant_pass_share: float | None = None
    note: str | None = None


Rates = dict[bool, dict[str, list[float]]]  # class (discriminating?) -> requirement -> rates


def _half(rates: dict[str, list[float]]) -> float:
    return float(np.mean([np.mean(values) for values in rates.values()]))


def _balanced(rates: Rates) -> float:
    return float(np.mean([_half(by_requirement) for by_requirement in rates.values()]))


def _interval(
    by_family: dict[tuple[bool, str, str], list[bool]], n_resamples: int, seed: int
) -> tuple[float, float]:
    """Percentile bootstrap in two stages: families within class and requirement, then cases
    within each family (a requirement of one family, or families that all pass alike, still
    vary with their cases). It collapses to the point where every family of a class and
    requirement passes alike and wholly (a perfect scorer, a constant one)."""
    rng = np.random.default_rng(seed)
    groups: dict[bool, dict[str, list[list[bool]]]] = defaultdict(lambda: defaultdict(list))
    for (moves, requirement, _), verdicts in sorted(by_family.items()):
        groups[moves][requirement].append(verdicts)
    halves = []
    for by_requirement in groups.values():
        per_requirement = []
        for families in by_requirement.values():
            means = np.stack(
                [
                    np.asarray(v, dtype=float)[
                        rng.integers(0, len(v), size=(n_resamples, len(v)))
                    ].mean(axis=1)
                    for v in families
                ],
                axis=1,
            )
            picks = rng.integers(0, means.shape[1], size=means.shape)
            per_requirement.append(np.take_along_axis(means, picks, axis=1).mean(axis=1))
        halves.append(np.mean(per_requirement, axis=0))
    return _percentile_interval(np.mean(halves, axis=0), 0.95)[0]


def balanced_score(
    outcomes: Sequence[CaseOutcome], *, n_resamples: int = 2000, seed: int = 0
) -> BalancedScore:
    """The balanced accuracy over the "moves" and "holds" cases (module docstring), with its
    interval (none with ``n_resamples=0``: the value alone, for a score recomputed many
    times)."""
    judged = len(outcomes)
    telling = sum(o.discriminating for o in outcomes)
    base = {
        "judged_cases": judged,
        "discriminating_cases": telling,
        "constant_pass_share": (judged - telling) / judged if judged else None,
    }
    if not telling:
        why = "no judged case" if not judged else "no discriminating case"
        return BalancedScore(**base, note=f"undefined: {why} (a constant scorer passes them all)")
    by_family: dict[tuple[bool, str, str], list[bool]] = defaultdict(list)
    for o in outcomes:
        by_family[(o.discriminating, o.requirement, o.family)].append(o.passed)
    rates: Rates = defaultdict(lambda: defaultdict(list))
    for (moves, requirement, _), verdicts in sorted(by_family.items()):
        rates[moves][requirement].append(sum(verdicts) / len(verdicts))
    ci = _interval(by_family, n_resamples, seed) if n_resamples > 0 else None
    holds = _half(rates[False]) if False in rates else None
    return BalancedScore(
        **base,
        value=_balanced(rates),
        ci=ci,
        moves=_half(rates[True]),
        holds=holds,
        families=len(by_family),
        requirements=len({r for by_r in rates.values() for r in by_r}),
        note=None
        if holds is not None
        else "no case a constant scorer passes: the score is the discriminating half alone",
    )
