"""The family schedule and the panel's early stop decide exactly what the full run decides."""

from __future__ import annotations

import asyncio
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sane.panel.oracle import majority, settled
from sane.panel.sequential import FamilyPlan, run_family
from sane.records import Decision, Question, Vote


def _deciding_prefix(outcomes: list[bool], plan: FamilyPlan) -> int:
    """Length of the shortest prefix after which the plan needs no further case."""
    passed = failed = 0
    for i, ok in enumerate(outcomes):
        passed, failed = passed + ok, failed + (not ok)
        if plan.stop_reason(passed, failed) is not None:
            return i + 1
    return len(outcomes)


@settings(max_examples=60, deadline=None)
@given(
    outcomes=st.lists(st.booleans(), min_size=1, max_size=12),
    tau_share=st.floats(0.01, 1.0),
    stop_at_tau=st.booleans(),
    seed=st.integers(0, 1000),
)
def test_schedule_generates_the_shortest_deciding_prefix(
    outcomes: list[bool], tau_share: float, stop_at_tau: bool, seed: int
) -> None:
    n = len(outcomes)
    plan = FamilyPlan(n, max(1, min(n, round(tau_share * n))), stop_at_tau=stop_at_tau)
    delays = random.Random(seed)
    evaluated: list[int] = []

    async def evaluate(index: int) -> bool:
        evaluated.append(index)
        await asyncio.sleep(delays.random() / 1000)  # answers arrive in any order
        return outcomes[index]

    run = asyncio.run(run_family(plan, evaluate))
    expected = _deciding_prefix(outcomes, plan)
    assert sorted(evaluated) == list(range(expected))
    assert run.generated == expected
    assert run.passed == sum(outcomes[:expected])
    assert (run.stopped is not None) == (expected < n)


def test_exhaustive_generates_every_case() -> None:
    outcomes = [False] * 6

    async def evaluate(index: int) -> bool:
        return outcomes[index]

    run = asyncio.run(run_family(FamilyPlan(6, 4, exhaustive=True), evaluate))
    assert run.generated == 6 and run.stopped is None


def test_doomed_family_says_why() -> None:
    async def evaluate(index: int) -> bool:
        return index == 0

    run = asyncio.run(run_family(FamilyPlan(10, 6), evaluate))
    assert run.generated == 6  # 1 pass, then 5 failures: 6 of 10 can no longer be reached
    assert run.stopped == "could_not_reach_tau"


def test_plan_rejects_budget_mode_with_exhaustive() -> None:
    with pytest.raises(ValueError):
        FamilyPlan(10, 6, exhaustive=True, stop_at_tau=True)


def _votes(decisions: list[Decision]) -> list[Vote]:
    return [
        Vote(subject_id="s", question=Question.alignment, decision=d, model="m", sample_index=i)
        for i, d in enumerate(decisions)
    ]


@given(
    full=st.lists(st.sampled_from(list(Decision)), min_size=1, max_size=7),
    asked=st.integers(0, 7),
)
def test_settled_never_contradicts_the_full_panel(full: list[Decision], asked: int) -> None:
    k = len(full)
    prefix = _votes(full[: min(asked, k)])
    early = settled(prefix, k)
    if early is not None:
        assert early is majority(_votes(full), k)


def test_settled_stops_at_two_agreeing_of_three() -> None:
    yes, no, unresolved = Decision.yes, Decision.no, Decision.unresolved
    assert settled(_votes([yes, yes]), 3) is yes
    assert settled(_votes([yes, no]), 3) is None
    assert settled(_votes([unresolved, unresolved]), 3) is unresolved
    assert settled(_votes([yes, unresolved]), 3) is None
