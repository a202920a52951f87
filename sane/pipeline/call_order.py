"""Which waiting call of a `generate` run gets the next concurrency slot: the one with the
most rounds of calls after it, in arrival order among equals.

Why: at concurrency 32 a run has more calls ready than slots for most of its time, and
the order in which they are served decides how long it ends on a thin tail
(benchmarks/bench_pipeline.py, docs/performance.md). A call's *level* is how many rounds
of calls at least follow it:

- an alignment vote gates its whole family: before all case work;
- a family's case work: 3 x the family's waves left (how many more times its window of
  cases in flight must turn over, `sane.panel.sequential.FamilyProgress`) plus the call's
  depth in its case (writing it 3, a realization vote 2, an applicability vote 1). A
  family whose failed cases narrowed its window has more waves left, so its calls go
  before those of a family about to finish;
- a planted control's decision has no call after it: level 1, beside the last
  applicability votes, not after everything: left to the very end, the controls' split
  decisions (a third vote) added a round at the end of the run.

Ranks are what the slots compare (`sane.llm.ranked`): lower first.
"""

from __future__ import annotations

from collections.abc import Callable

from sane.panel.sequential import FamilyProgress
from sane.records import Question, Stage

ALIGNMENT_RANK = 0
_CASE_WORK = 1  # ranks from here on are case work and controls, by level
_MAX_LEVEL = 1_000_000  # levels saturate here (a family of a third of a million cases)
CASE_STEP_DEPTH = {Stage.cases: 3, Question.realization: 2, Question.applicability: 1}

CaseStep = Stage | Question  # Stage.cases (writing a case) or one of its panel questions


def case_rank(step: CaseStep, waves_left: int) -> int:
    """The rank of a case's call at `step` in a family with `waves_left` waves to go."""
    level = min(3 * waves_left + CASE_STEP_DEPTH[step], _MAX_LEVEL)
    return _CASE_WORK + _MAX_LEVEL - level


CONTROL_RANK = case_rank(Question.applicability, 0)


def family_ranks(progress: FamilyProgress) -> Callable[[CaseStep], Callable[[], int]]:
    """For each step of a family's cases, its rank as the slots read it when a call starts
    waiting (the family's waves left change as its cases are decided)."""

    def rank(step: CaseStep) -> Callable[[], int]:
        return lambda: case_rank(step, progress.waves_left())

    return rank
