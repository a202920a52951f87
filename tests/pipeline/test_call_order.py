"""The order of waiting calls (sane.pipeline.call_order): most rounds of calls after a call first.

Its effect on a run's wall time is measured by benchmarks/bench_pipeline.py; these tests
pin what it decides: how many waves a family has left, how ranks order the steps, and
that a real run's calls wait with the ranks their step and family give them.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from pathlib import Path

import pytest
from tiny_suite import generate_tiny

from sane.llm import LLMSettings
from sane.panel.sequential import FamilyPlan, FamilyProgress, run_family
from sane.pipeline import call_order
from sane.pipeline.call_order import ALIGNMENT_RANK, CONTROL_RANK, case_rank
from sane.records import Question, Stage

STEPS = (Stage.cases, Question.realization, Question.applicability)  # a case's calls in order


@pytest.mark.parametrize(
    ("passed", "failed", "launched", "waves"),
    [
        (0, 0, 0, 2),  # 10 cases through a window of 5
        (0, 0, 5, 1),
        (0, 2, 5, 2),  # two failures narrow the window to 3: 5 cases left take 2 waves
        (3, 0, 9, 1),
        (4, 0, 10, 0),  # every case launched
        (0, 5, 5, 0),  # doomed: nothing more will be launched
    ],
)
def test_waves_left_counts_the_turns_of_the_window_still_ahead(
    passed: int, failed: int, launched: int, waves: int
) -> None:
    progress = FamilyProgress(FamilyPlan(10, 6), passed, failed, launched)
    assert progress.waves_left() == waves


def test_in_budget_mode_a_family_that_reached_tau_has_no_waves_left() -> None:
    plan = FamilyPlan(10, 6, stop_at_tau=True)
    assert FamilyProgress(plan, passed=6, launched=7).waves_left() == 0


def test_ranks_put_the_most_work_ahead_first() -> None:
    assert call_order.CASE_STEP_DEPTH.keys() == set(STEPS)  # every step of a case is ranked
    for waves in range(4):
        ranks = [case_rank(step, waves) for step in STEPS]
        assert ranks == sorted(ranks) and len(set(ranks)) == 3  # write, realize, apply
        # every call of a family with more waves left goes before any of one with fewer
        assert max(case_rank(step, waves + 1) for step in STEPS) < min(ranks)
        assert ALIGNMENT_RANK < min(ranks)
    # a control's decision has nothing after it: beside a last applicability vote, not last
    assert CONTROL_RANK == case_rank(Question.applicability, 0)
    assert CONTROL_RANK > case_rank(Question.realization, 0)
    assert case_rank(Stage.cases, 10**9) == case_rank(Stage.cases, 10**8)  # saturates


async def test_run_family_keeps_the_progress_current() -> None:
    plan = FamilyPlan(10, 6)
    progress = FamilyProgress(plan)
    seen: list[int] = []  # the family's waves left as each case's first call would see it

    async def evaluate(index: int) -> bool:
        seen.append(progress.waves_left())
        await asyncio.sleep(0)
        return index >= 4  # the first four fail: the window narrows to one case

    run = await run_family(plan, evaluate, progress)
    assert (progress.passed, progress.failed, progress.launched) == (
        run.passed,
        run.failed,
        run.generated,
    )
    # cases 0-4 start once the window of 5 is launched: the other 5 take one more wave;
    # after four failures they go one at a time, so the family has more waves ahead
    assert seen[:5] == [1] * 5 and seen[5:] == [4, 3, 2, 1, 0]
    assert progress.waves_left() == 0


def test_a_runs_calls_wait_with_the_rank_of_their_step(
    workdir: Path, settings: LLMSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scripted tiny suite, with every call's rank recorded as it asks for a slot."""
    from sane.llm import _client

    waited: dict[str, set[int]] = defaultdict(set)
    rank_now = _client.current_rank
    calling = _client.LLMClient._call_with_retries

    async def recording(self, key, route, model, messages, params, task, sample_index):  # type: ignore[no-untyped-def]
        waited[task].add(rank_now())
        return await calling(self, key, route, model, messages, params, task, sample_index)

    monkeypatch.setattr(_client.LLMClient, "_call_with_retries", recording)
    generate_tiny(workdir, settings)

    def ranks(step: Stage | Question) -> set[int]:
        return {case_rank(step, waves) for waves in range(11)}

    assert waited["vote:alignment"] == {ALIGNMENT_RANK}
    assert waited["cases"] and waited["cases"] <= ranks(Stage.cases)
    assert waited["vote:applicability"] <= ranks(Question.applicability)
    # a case's realization votes by its family's waves; the planted controls' at theirs
    assert CONTROL_RANK in waited["vote:realization"]
    assert waited["vote:realization"] - {CONTROL_RANK} <= ranks(Question.realization)
    assert len(waited["vote:realization"]) > 1
