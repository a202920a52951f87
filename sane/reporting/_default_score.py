"""Each target's default ranking score: the balanced pass rate over discriminating cases.

Why here: the score (sane.stats.balanced_score, whose docstring has the formula and the
reason) needs what only a report knows: which executions count (joint-valid cases of
validated families) and each case's recipe, requirement and relation kind. A case is
discriminating where its relation kind predicts that the scores differ
(`RelationKind.changes_score`), so a scorer that never moves fails it.
"""

from __future__ import annotations

from collections import defaultdict

from sane.records import SuiteSnapshot, Verdict
from sane.relations import KINDS
from sane.reporting._build import ReportContext
from sane.stats import BalancedScore, CaseOutcome, balanced_score


def default_scores(context: ReportContext) -> dict[str, BalancedScore]:
    """target -> its balanced score over the counted executions (errors left out)."""
    outcomes: dict[str, list[CaseOutcome]] = defaultdict(list)
    for execution in context.runs:
        if execution.verdict is Verdict.error:
            continue
        recipe = context.recipes[execution.recipe_id]
        outcomes[execution.target].append(
            CaseOutcome(
                family=recipe.id,
                requirement=recipe.requirement.value,
                passed=execution.verdict is Verdict.passed,
                discriminating=KINDS[recipe.relation.kind].changes_score,
            )
        )
    return {
        name: balanced_score(found, n_resamples=context.n_resamples, seed=context.seed)
        for name, found in sorted(outcomes.items())
    }


def snapshot_default_scores(snapshot: SuiteSnapshot) -> dict[str, BalancedScore]:
    """The default scores of a suite snapshot's targets (benchmarks, the API)."""
    return default_scores(ReportContext(snapshot))
