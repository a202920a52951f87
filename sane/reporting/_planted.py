"""The planted target controls in a report: where the null scorers fall, which candidates
no paired test separates from the scorer that never moves, and each target's default score.

Why: a ranking means something only against the scores a worthless scorer gets on the same
suite. Every execution runs the null scorers (sane.scorers.null_scorers); the report keeps
them out of the ranking and the targets (they are not candidates) and says here, for each,
where it would rank among the candidates. A candidate that no paired test shows better than
the constant scorer on the cases both judged (McNemar on the pass rate, nor the sign-flip
test of default scores the ranking orders by) is flagged "not shown better than a scorer
that never moves", first in every format (the findings headline). A suite whose cases
a constant scorer mostly passes is warned about: its pass rates reward not moving, which the
default score (sane.stats.balanced_score: a scorer that never moves gets 0.5) does not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from pydantic import Field

from sane._record import Record
from sane.records import Verdict
from sane.relations import discriminates
from sane.stats import (
    BalancedScore,
    CaseOutcome,
    balanced_comparison,
    balanced_score,
    paired_comparison,
)

if TYPE_CHECKING:
    from sane.records import ExecutionRecord
    from sane.reporting._build import ReportContext

CONSTANT = "null-constant"  # sane.scorers.null_scorers.CONSTANT (reporting never imports scorers)
NOT_SHOWN_BETTER = "not shown better than a scorer that never moves"
SHOWN_WORSE = "shown worse than a scorer that never moves"
HIGH_CONSTANT_SHARE = 0.5  # above this share of passes by the constant scorer, warn
DEFAULT_SCORE_MEANING = (
    "Default score: the balanced accuracy over the cases that need the score to move (a "
    "scorer that never moves from the target's typical score, its median on the examples, "
    "fails them) and the cases that need it to hold still (it passes them), requirements and "
    "families weighed evenly within each class; a scorer that never moves gets 0.5, so "
    "below 0.5 is worse than one. Its 95% interval, then the discriminating cases in brackets"
)


class PlantedScorer(Record):
    """One null scorer's results, and where it would rank among the candidates."""

    target: str
    pass_rate: float | None = None
    default_score: float | None = None
    # 1 + the number of candidates above it (ties share the better place), of `candidates`
    place_by_pass_rate: int | None = None
    place_by_default_score: int | None = None
    candidates: int = 0


class PlantedTargets(Record):
    """The report's planted target controls (JSON `planted_targets`)."""

    scorers: list[PlantedScorer] = Field(default_factory=list)
    # the share of the suite's judged cases the constant scorer passes
    constant_pass_share: float | None = None
    # candidates no paired test shows better than the constant scorer
    not_shown_better: list[str] = Field(default_factory=list)
    # of those, the ones the ranking's test (default scores, paired sign-flip) shows worse
    # than it: they move where they should not, or against the criterion
    shown_worse: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


def outcomes_of(runs: list[ExecutionRecord], context: ReportContext) -> list[CaseOutcome]:
    """The judged cases of `runs` as the default score reads them (errors left out), each
    classed for its own target, at that target's level and under the tolerance its verdict
    was checked under (`discriminating`)."""
    found = []
    for execution in runs:
        if execution.verdict is Verdict.error:
            continue
        recipe = context.recipes[execution.recipe_id]
        found.append(
            CaseOutcome(
                family=recipe.id,
                requirement=recipe.requirement.value,
                passed=execution.verdict is Verdict.passed,
                discriminating=context.discriminating(
                    recipe.id, execution.target, execution.tolerance
                ),
                case=execution.case_id,
            )
        )
    return found


def discriminating(context: ReportContext, recipe_id: str, target: str, tolerance: float) -> bool:
    """Whether a scorer that never moves can fail the recipe's relation
    (`sane.relations.discriminates`): one that never moves from the target's own level, where
    the suite stores it, else one at any level. Only a level case's answer depends on the
    target; where two targets' answers differ, a paired test leaves the case out
    (sane.stats._balanced_comparison)."""
    return discriminates(
        context.recipes[recipe_id].relation,
        context.snapshot.spec.output.higher_is_better,
        level=context.snapshot.levels.get(target),
        tolerance=tolerance,
    )


def case_outcomes(context: ReportContext) -> dict[str, list[CaseOutcome]]:
    """Every executed target's judged cases (the null scorers' too), by name: what its
    default score and the paired tests of default scores are computed from."""
    by_target: dict[str, list[ExecutionRecord]] = {}
    for execution in context.counted[0]:
        by_target.setdefault(execution.target, []).append(execution)
    return {name: outcomes_of(runs, context) for name, runs in sorted(by_target.items())}


def default_scores(context: ReportContext) -> dict[str, BalancedScore]:
    """Every executed target's default score (the null scorers' too), by name."""
    return {
        name: balanced_score(outcomes, n_resamples=context.n_resamples, seed=context.seed)
        for name, outcomes in context.case_outcomes.items()
    }


def place(value: float | None, candidates: Mapping[str, float | None]) -> int | None:
    """1 + the candidates above ``value`` (ties share the better place)."""
    if value is None:
        return None
    return 1 + sum(v is not None and v > value for v in candidates.values())


def _passed(runs: list[ExecutionRecord]) -> dict[str, bool]:
    return {
        e.case_id: e.verdict is Verdict.passed
        for e in runs
        if e.verdict in (Verdict.passed, Verdict.fault)
    }


def planted_targets(context: ReportContext) -> PlantedTargets | None:
    """The planted controls' section; None where the suite ran none (an older suite)."""
    planted = context.planted
    runs = [e for e in context.counted[0] if e.target in planted]
    if not runs:
        return None
    scores = context.default_scores
    rates = {name: summary.pass_rate for name, summary in context.targets.items()}
    defaults = {name: scores[name].value if name in scores else None for name in rates}
    scorers = []
    for name in sorted({e.target for e in runs}):
        own = [e for e in runs if e.target == name]
        judged = [e for e in own if e.verdict is not Verdict.error]
        rate = sum(e.verdict is Verdict.passed for e in judged) / len(judged) if judged else None
        default = scores[name].value if name in scores else None
        scorers.append(
            PlantedScorer(
                target=name,
                pass_rate=rate,
                default_score=default,
                place_by_pass_rate=place(rate, rates),
                place_by_default_score=place(default, defaults),
                candidates=len(rates),
            )
        )
    constant = _passed([e for e in runs if e.target == CONSTANT])
    share = sum(constant.values()) / len(constant) if constant else None
    flagged, worse = [], []
    if constant:
        outcomes = context.case_outcomes
        for name in sorted(n for n, rate in rates.items() if rate is not None):
            mine = _passed(context.by_target.get(name, []))
            pair = paired_comparison(
                name, mine, CONSTANT, constant, n_resamples=context.n_resamples, seed=context.seed
            )
            # the test the ranking orders by, too: on an invariance-heavy suite a judge that
            # moves where it must can pass fewer cases than the constant and still beat it
            scored = balanced_comparison(
                name, outcomes.get(name, []), CONSTANT, outcomes.get(CONSTANT, []),
                n_resamples=context.n_resamples, seed=context.seed,
            )  # fmt: skip
            if name not in (pair.better, scored.better):
                flagged.append(name)
                if scored.better == CONSTANT:
                    worse.append(name)
    warnings = []
    if share is not None and share > HIGH_CONSTANT_SHARE:
        warnings.append(
            f"a scorer that never moves passes {share:.0%} of this suite's judged cases: its "
            "pass rates mostly reward not moving; read the default score (on which a scorer "
            "that never moves gets 0.5) and the null scorers' places"
        )
    return PlantedTargets(
        scorers=scorers,
        constant_pass_share=share,
        not_shown_better=flagged,
        shown_worse=worse,
        warnings=warnings,
    )


def planted_notes(planted: PlantedTargets | None) -> list[str]:
    """The lines every ranking shows under its table: who is not shown better than the
    constant scorer, where each null scorer would rank, and the warnings."""
    if planted is None:
        return []
    notes = []
    if planted.not_shown_better:
        notes.append(f"{NOT_SHOWN_BETTER}: " + ", ".join(planted.not_shown_better))
    if planted.shown_worse:
        notes.append(
            f"{SHOWN_WORSE} (its default score significantly lower): "
            + ", ".join(planted.shown_worse)
        )
    places = "; ".join(
        f"{s.target} would rank {s.place_by_pass_rate or '-'} by pass rate and "
        f"{s.place_by_default_score or '-'} by default score, of {s.candidates + 1}"
        for s in planted.scorers
    )
    notes.append(f"planted null scorers (not candidates): {places}")
    return notes + planted.warnings
