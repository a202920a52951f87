"""Sequential family generation: stop making cases once they can no longer change the outcome.

Why: most of a suite's cost is per case (one generation, then votes on two
questions). A family needs tau joint-valid cases out of n; once more than
n - tau cases have failed it can never be validated, so the rest of its cases
would be paid for and thrown away. A family that can still pass keeps all n
cases, so pass rates keep their sample size.

The schedule launches cases in index order and keeps at most as many in flight
as could still fail before the family is doomed (and, in budget mode, as could
still pass before it reaches tau). No case is launched that all in-flight cases
failing (or passing) would make useless, so the cases generated are exactly the
shortest prefix 0..m-1 that decides the family: the same set on every run,
whatever order the answers arrive in. Exhaustive mode launches all n at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

StopReason = Literal["could_not_reach_tau", "reached_tau"]


@dataclass(frozen=True)
class FamilyPlan:
    """How many cases a family plans (n), how many must be joint-valid (tau), and the mode."""

    n: int
    tau: int
    exhaustive: bool = False
    stop_at_tau: bool = False

    def __post_init__(self) -> None:
        if not 1 <= self.tau <= self.n:
            raise ValueError(f"tau must be between 1 and n ({self.n}), got {self.tau}")
        if self.exhaustive and self.stop_at_tau:
            raise ValueError("stop_at_tau is a sequential mode; it cannot be exhaustive")

    def stop_reason(self, passed: int, failed: int) -> StopReason | None:
        """Why no further case is needed, or None while the outcome is open."""
        if not self.exhaustive and failed > self.n - self.tau:
            return "could_not_reach_tau"
        if self.stop_at_tau and passed >= self.tau:
            return "reached_tau"
        return None

    def window(self, passed: int, failed: int) -> int:
        """The most cases that may be in flight after `passed` + `failed` decided ones."""
        if self.exhaustive:
            return self.n
        room = self.n - self.tau + 1 - failed  # further failures that would doom the family
        if self.stop_at_tau:
            room = min(room, self.tau - passed)  # further passes that would reach tau
        return max(room, 0)


@dataclass
class FamilyProgress:
    """How far a family's schedule has got; `run_family` keeps it current, so that the
    family's calls can be ranked by the work still ahead of it (sane.pipeline.call_order)."""

    plan: FamilyPlan
    passed: int = 0
    failed: int = 0
    launched: int = 0

    def waves_left(self) -> int:
        """How many more times the window of cases in flight must turn over before the
        last case is launched: 0 once every case is, or once the family is decided."""
        if self.plan.stop_reason(self.passed, self.failed) is not None:
            return 0
        unlaunched = self.plan.n - self.launched
        window = self.plan.window(self.passed, self.failed)
        return -(-unlaunched // window) if unlaunched and window else 0


@dataclass(frozen=True)
class FamilyRun:
    """What a family's schedule did: cases evaluated, their outcomes and why it stopped."""

    generated: int
    passed: int
    failed: int
    stopped: StopReason | None


async def run_family(
    plan: FamilyPlan,
    evaluate: Callable[[int], Awaitable[bool]],
    progress: FamilyProgress | None = None,
) -> FamilyRun:
    """Evaluate case indices 0..n-1 (True = joint-valid) under the plan's schedule, keeping
    `progress` (when given) current as cases are launched and decided.

    An exception from `evaluate` (a budget stop, a bug) cancels the cases in
    flight and propagates; what they had stored stays stored, so a rerun resumes.
    """
    progress = progress or FamilyProgress(plan)  # the schedule's counts live here
    if progress.plan != plan:
        raise ValueError("run_family was given the progress of another plan")
    pending: dict[asyncio.Task[bool], int] = {}
    try:
        while True:
            if plan.stop_reason(progress.passed, progress.failed) is None:
                while progress.launched < plan.n and len(pending) < plan.window(
                    progress.passed, progress.failed
                ):
                    pending[asyncio.create_task(evaluate(progress.launched))] = progress.launched
                    progress.launched += 1
            if not pending:
                break
            finished, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            for task in finished:
                del pending[task]
                if task.result():
                    progress.passed += 1
                else:
                    progress.failed += 1
    finally:
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
    stopped = (
        plan.stop_reason(progress.passed, progress.failed) if progress.launched < plan.n else None
    )
    return FamilyRun(
        generated=progress.launched, passed=progress.passed, failed=progress.failed, stopped=stopped
    )
