"""How much a ranking rests on the tolerance floor: every counted execution checked again,
from its stored scores, under other floors, and the default-score order compared.

Why: a relation check counts a change below the tolerance as no move, and a deterministic
target's tolerance is the floor (`sane execute --tolerance-floor`, 0.05 of the normalised
range by default): a bar chosen once for every target. A continuous metric whose response
to an edit is small but consistent (an n-gram precision moves by a few hundredths when one
fact of a summary changes) fails its "decrease" cases under it, and a ranking against a
human benchmark (a rank correlation, which counts any consistent move) can turn on it:
on QAGS the default score's Spearman with human agreement went from +0.33 at 0.05 to +0.88
at 0 on one suite (docs/statistics.md). No call is made: the stored normalised scores are
checked again (`sane.relations.check_relation`) with ``tolerance_for(noise, floor)``, the
rule `sane execute` uses, so the run's own floor reproduces its verdicts.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from pydantic import Field

from sane._record import Record
from sane.records import Verdict
from sane.relations import check_relation, tolerance_for
from sane.reporting._planted import outcomes_of, place
from sane.stats import balanced_score

if TYPE_CHECKING:
    from sane.records import ExecutionRecord
    from sane.reporting._build import ReportContext

FLOORS = (0.0, 0.01, 0.02, 0.05, 0.1)
"""The floors every report checks the ranking under, beside the run's own."""
UNSTABLE_TAU = 0.5
"""Below this Kendall's tau with the ranking's order (more than a quarter of the pairs of
targets in the other order) at some floor, the report warns."""


class FloorRanking(Record):
    """The candidates' default scores and pass rates with every case checked at ``floor``."""

    floor: float
    default_scores: dict[str, float | None] = Field(default_factory=dict)
    pass_rates: dict[str, float | None] = Field(default_factory=dict)
    order: list[str] = Field(default_factory=list)  # by default score, best first
    # Kendall's tau-b between these default scores and the ranking's (None: < 3 targets)
    kendall: float | None = None
    # each planted null scorer's place among the candidates by these default scores
    null_places: dict[str, int | None] = Field(default_factory=dict)


class ToleranceSensitivity(Record):
    """The report's `tolerance_sensitivity` section."""

    run_floors: list[float] = Field(default_factory=list)  # the floors the targets ran under
    floors: list[FloorRanking] = Field(default_factory=list)
    unchecked: list[str] = Field(default_factory=list)  # candidates without a stored noise

    def sentence(self) -> str:
        """One line for every format."""
        parts = [
            f"{row.floor:g}: " + ("-" if row.kendall is None else f"{row.kendall:+.2f}")
            + (f" ({row.order[0]} first)" if row.order else "")
            for row in self.floors
        ]  # fmt: skip
        own = ", ".join(f"{f:g}" for f in self.run_floors) or "-"
        return (
            f"Tolerance floor (this run: {own}): Kendall's tau between the default-score order "
            "with every case checked again at each floor and this ranking's: " + "; ".join(parts)
        )

    def warnings(self) -> list[str]:
        """One warning where the order at some floor parts from the ranking's."""
        unstable = [r for r in self.floors if r.kendall is not None and r.kendall < UNSTABLE_TAU]
        if not unstable:
            return []
        where = ", ".join(f"{r.floor:g} ({r.kendall:+.2f})" for r in unstable)
        warning = (
            "the ranking rests on the tolerance floor (the least change a check counts as a "
            f"move): with the cases checked again at floor {where}, Kendall's tau with its "
            "order is below 0.5; see tolerance_sensitivity"
        )
        return [warning]


def _rechecked(
    runs: list[ExecutionRecord], context: ReportContext, tolerance: float
) -> list[ExecutionRecord]:
    higher_is_better = context.snapshot.spec.output.higher_is_better
    out = []
    for execution in runs:
        if execution.verdict is Verdict.error:
            continue
        relation = context.recipes[execution.recipe_id].relation
        result = check_relation(relation, execution.normalised, tolerance, higher_is_better)
        if result.verdict is not Verdict.error:
            out.append(execution.model_copy(update={"verdict": result.verdict}))
    return out


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
    run_floors = {f for n, f in context.snapshot.tolerance_floors.items() if n in candidates}
    rows = []
    for floor in sorted({*FLOORS, *run_floors}):
        scores: dict[str, float | None] = {}
        rates: dict[str, float | None] = {}
        for name, runs in checked.items():
            again = _rechecked(runs, context, tolerance_for(noise[name], floor))
            scores[name] = balanced_score(outcomes_of(again, context), n_resamples=0).value
            judged = [e.verdict is Verdict.passed for e in again]
            rates[name] = sum(judged) / len(judged) if judged else None
        ranked = {n: scores[n] for n in candidates}
        order = sorted((n for n in ranked if ranked[n] is not None), key=lambda n: -ranked[n])
        rows.append(
            FloorRanking(
                floor=floor,
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
        run_floors=sorted(run_floors),
        floors=rows,
        unchecked=sorted(set(by_target) - set(checked) - context.planted),
    )
