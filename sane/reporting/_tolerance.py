"""How much a ranking rests on the tolerance: every counted execution checked again, from
its stored scores, under other bars, and the default-score order compared.

Why: a relation check counts a change below the target's tolerance as no move, and a
deterministic target's tolerance is its bar alone: the larger of the absolute floor
(`sane execute --tolerance-floor`, 0 by default) and a share of the target's own spread of
scores (`--tolerance-spread`, 0.1 by default; `sane.relations.tolerance_for`). A ranking
against a human benchmark (a rank correlation, which counts any consistent move) can turn
on that bar: on QAGS an absolute floor of 0.05, the old default, put the default score's
Spearman with human agreement at +0.33 on one suite, against +0.88 at floor 0
(docs/statistics.md). No call is made: the stored normalised scores are checked again
(`ExecutionRecord.checked_under`) with ``tolerance_for(noise, floor, spread, share)``, the
rule `sane execute` uses, so the run's own bar reproduces its verdicts.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from pydantic import Field

from sane._record import Record
from sane.records import Verdict
from sane.relations import tolerance_for
from sane.reporting._planted import outcomes_of, place
from sane.stats import balanced_score

if TYPE_CHECKING:
    from sane.records import ExecutionRecord
    from sane.reporting._build import ReportContext

FLOORS = (0.0, 0.01, 0.02, 0.05, 0.1)
"""The absolute floors every report checks the ranking under (with no spread share)."""
SPREAD_SHARES = (0.05, 0.1, 0.2)
"""The shares of each target's spread it checks the ranking under (with floor 0)."""
UNSTABLE_TAU = 0.5
"""Below this Kendall's tau with the ranking's order (more than a quarter of the pairs of
targets in the other order) at some floor, the report warns."""


class FloorRanking(Record):
    """The candidates' default scores and pass rates with every case checked at the bar
    ``floor`` and ``spread_share`` set (each target's tolerance then `tolerance_for` its
    noise, its spread and these)."""

    floor: float
    spread_share: float = 0.0
    default_scores: dict[str, float | None] = Field(default_factory=dict)
    pass_rates: dict[str, float | None] = Field(default_factory=dict)
    order: list[str] = Field(default_factory=list)  # by default score, best first
    # Kendall's tau-b between these default scores and the ranking's (None: < 3 targets)
    kendall: float | None = None
    # each planted null scorer's place among the candidates by these default scores
    null_places: dict[str, int | None] = Field(default_factory=dict)

    @property
    def label(self) -> str:
        """The bar in words: "0.05" (an absolute floor), "0.1 x spread", or both."""
        parts = [f"{self.floor:g}"] if self.floor or not self.spread_share else []
        if self.spread_share:
            parts.append(f"{self.spread_share:g} x spread")
        return " + ".join(parts)


class ToleranceSensitivity(Record):
    """The report's `tolerance_sensitivity` section."""

    run_floors: list[float] = Field(default_factory=list)  # the floors the targets ran under
    run_spread_shares: list[float] = Field(default_factory=list)  # and the spread shares
    floors: list[FloorRanking] = Field(default_factory=list)
    unchecked: list[str] = Field(default_factory=list)  # candidates without a stored noise

    def sentence(self) -> str:
        """One line for every format."""
        parts = [
            f"{row.label}: " + ("-" if row.kendall is None else f"{row.kendall:+.2f}")
            + (f" ({row.order[0]} first)" if row.order else "")
            for row in self.floors
        ]  # fmt: skip
        floors = ", ".join(f"{f:g}" for f in self.run_floors) or "-"
        shares = ", ".join(f"{f:g}" for f in self.run_spread_shares) or "-"
        return (
            f"Tolerance (this run: floor {floors}, spread share {shares}): Kendall's tau "
            "between the default-score order with every case checked again under each bar "
            "and this ranking's: " + "; ".join(parts)
        )

    def warnings(self) -> list[str]:
        """One warning where the order at some floor parts from the ranking's."""
        unstable = [r for r in self.floors if r.kendall is not None and r.kendall < UNSTABLE_TAU]
        if not unstable:
            return []
        where = ", ".join(f"{r.label} ({r.kendall:+.2f})" for r in unstable)
        warning = (
            "the ranking rests on the tolerance (the least change a check counts as a "
            f"move): with the cases checked again under {where}, Kendall's tau with its "
            "order is below 0.5; see tolerance_sensitivity"
        )
        return [warning]


def _rechecked(
    runs: list[ExecutionRecord], context: ReportContext, tolerance: float
) -> list[ExecutionRecord]:
    higher_is_better = context.snapshot.spec.output.higher_is_better
    again = (
        e.checked_under(context.recipes[e.recipe_id].relation, tolerance, higher_is_better)
        for e in runs
        if e.verdict is not Verdict.error
    )
    return [e for e in again if e.verdict is not Verdict.error]


def _kendall(a: dict[str, float | None], b: dict[str, float | None]) -> float | None:
    both = [n for n in a if a[n] is not None and b.get(n) is not None]
    if len(both) < 3:
        return None
    from scipy import stats  # loaded with the statistics, as the report's sections are

    tau = stats.kendalltau([a[n] for n in both], [b[n] for n in both]).statistic
    return None if math.isnan(tau) else float(tau)


def tolerance_sensitivity(context: ReportContext) -> ToleranceSensitivity | None:
    """The section; None without two executed candidates (no order to compare). The
    planted null scorers are checked again too, and placed, never ranked, as in the report."""
    by_target: dict[str, list[ExecutionRecord]] = {}
    for execution in context.counted[0]:
        by_target.setdefault(execution.target, []).append(execution)
    noise = context.snapshot.noise
    checked = {name: runs for name, runs in by_target.items() if name in noise}
    candidates = [name for name in checked if name not in context.planted]
    if len(candidates) < 2:
        return None
    stored = {n: context.default_scores[n].value for n in candidates}
    snapshot = context.snapshot
    own = {(snapshot.tolerance_floors[n], snapshot.spread_shares.get(n, 0.0))
           for n in candidates if n in snapshot.tolerance_floors}  # fmt: skip
    bars = {(f, 0.0) for f in FLOORS} | {(0.0, s) for s in SPREAD_SHARES} | own
    rows = []
    for floor, share in sorted(bars, key=lambda bar: (bool(bar[1]), bar[1], bar[0])):
        scores: dict[str, float | None] = {}
        rates: dict[str, float | None] = {}
        for name, runs in checked.items():
            tolerance = tolerance_for(noise[name], floor, snapshot.spreads.get(name, 0.0), share)
            again = _rechecked(runs, context, tolerance)
            scores[name] = balanced_score(outcomes_of(again, context), n_resamples=0).value
            judged = [e.verdict is Verdict.passed for e in again]
            rates[name] = sum(judged) / len(judged) if judged else None
        ranked = {n: scores[n] for n in candidates}
        order = sorted((n for n in ranked if ranked[n] is not None), key=lambda n: -ranked[n])
        rows.append(
            FloorRanking(
                floor=floor,
                spread_share=share,
                default_scores=ranked,
                pass_rates={n: rates[n] for n in candidates},
                order=order,
                kendall=_kendall(ranked, stored),
                null_places={
                    n: place(scores[n], ranked) for n in sorted(set(checked) & context.planted)
                },
            )
        )
    return ToleranceSensitivity(
        run_floors=sorted({floor for floor, _ in own}),
        run_spread_shares=sorted({share for _, share in own}),
        floors=rows,
        unchecked=sorted(set(by_target) - set(checked) - context.planted),
    )
