"""A ranking score a scorer that never moves cannot win: the balanced pass rate over
discriminating cases.

Why: the raw pass rate counts every judged case alike, so a suite made mostly of invariance
and no-increase tests (an operator grid: 7 of 9 code edits change nothing that matters to a
faithfulness criterion) rewards not moving; a constant scorer passed 0.912 of such a suite and
ranked second of ten (issue 51). The behavioral-correctness paper (section 3.4) makes the same
point: its most stable metric was its least sensitive, so stability alone is not reliability.

The score counts a case only where a scorer that never moves would fail it: the relation
predicts that the variants' scores differ (`RelationKind.changes_score`: decrease, increase,
graded series), so equal scores cannot pass it. Invariance and no-increase / no-decrease cases
are passed by a constant scorer whatever the criterion, so they carry no evidence of skill for
a ranking (they stay in the raw pass rate and in stability). It then weights every requirement
evenly, and every family (recipe) evenly within its requirement, so one large family does not
decide the rank:

    score = mean over requirements r of ( mean over families f of r of passes_f / judged_f )

over discriminating cases only. Interval: percentile bootstrap over families, resampled within
each requirement (2000 resamples, seeded). Undefined (None, with a note) without a
discriminating case: such a suite cannot tell a judge from a constant scorer.
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
    that never moves would fail it (a discriminating case)."""

    family: str
    requirement: str
    passed: bool
    discriminating: bool


class BalancedScore(StatsModel):
    """The default ranking score of one target, with what it rests on."""

    value: float | None = None
    ci: tuple[float, float] | None = None
    discriminating_cases: int = 0
    judged_cases: int = 0
    families: int = 0
    requirements: int = 0
    # share of the judged cases a scorer that never moves passes (the non-discriminating ones)
    constant_pass_share: float | None = None
    note: str | None = None


def _balanced(rates: dict[str, list[float]]) -> float:
    return float(np.mean([np.mean(values) for values in rates.values()]))


def balanced_score(
    outcomes: Sequence[CaseOutcome], *, n_resamples: int = 2000, seed: int = 0
) -> BalancedScore:
    """The balanced pass rate over discriminating cases (module docstring), with its interval."""
    judged = len(outcomes)
    kept = [o for o in outcomes if o.discriminating]
    base = {
        "judged_cases": judged,
        "discriminating_cases": len(kept),
        "constant_pass_share": (judged - len(kept)) / judged if judged else None,
    }
    if not kept:
        why = "no judged case" if not judged else "no discriminating case"
        return BalancedScore(**base, note=f"undefined: {why} (a constant scorer passes them all)")
    by_family: dict[tuple[str, str], list[bool]] = defaultdict(list)
    for outcome in kept:
        by_family[(outcome.requirement, outcome.family)].append(outcome.passed)
    rates: dict[str, list[float]] = defaultdict(list)
    for (requirement, _), verdicts in sorted(by_family.items()):
        rates[requirement].append(sum(verdicts) / len(verdicts))
    rng = np.random.default_rng(seed)
    draws = [
        _balanced({r: list(rng.choice(v, size=len(v))) for r, v in rates.items()})
        for _ in range(n_resamples)
    ]
    ci, _ = _percentile_interval(np.asarray(draws), 0.95)
    return BalancedScore(
        **base,
        value=_balanced(rates),
        ci=ci,
        families=len(by_family),
        requirements=len(rates),
    )
