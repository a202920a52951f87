"""What the workflow's stages share at run time.

The LangGraph state carries what each stage produced for the next (sane.pipeline.workflow); the
live objects every stage uses (the store, the LLM client, the panel, the targets) travel
in this context, built fresh by every run; what a run decided lives in the store, which
is also how a rerun resumes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from sane.errors import BudgetExceeded
from sane.panel.kinds import PanelKind, panel_kind
from sane.panel.oracle import OraclePanel
from sane.records import (
    Example,
    ExecuteConfig,
    PanelDecision,
    Question,
    Recipe,
    RunConfig,
    ScorerSpec,
)
from sane.scorers.base import Target
from sane.suites.store import SuiteStore

if TYPE_CHECKING:  # the client (litellm) loads when a run starts, not on import
    from sane.llm import LLMClient

T = TypeVar("T")
Progress = Callable[[str, int, int], None]


def no_progress(stage: str, done: int, total: int) -> None:
    return None


@dataclass
class Tally:
    """The progress of a stage whose items finish in many concurrent flows."""

    label: str
    total: int
    progress: Progress
    done: int = 0

    def __post_init__(self) -> None:
        self.progress(self.label, 0, self.total)

    def add(self, count: int) -> None:
        self.done += count
        self.progress(self.label, self.done, self.total)


@dataclass
class RunContext:
    store: SuiteStore
    llm: LLMClient
    spec: ScorerSpec
    config: RunConfig
    examples: list[Example]
    panel: OraclePanel
    targets: dict[str, Target] = field(default_factory=dict)
    definitions: dict[str, str] = field(default_factory=dict)  # target -> definition_sha256
    execution: ExecuteConfig = field(default_factory=ExecuteConfig)
    progress: Progress = no_progress

    @property
    def panel_kind(self) -> PanelKind:
        """How this suite's panel asks each question (sane.panel.kinds)."""
        return panel_kind(self.config.panel)


@dataclass
class RecipeFlows:
    """What the concurrent recipe flows of one run share (sane.pipeline.generate.recipe_flow), carried
    to each by the graph: the recipes (id -> sequence number, recipe) and the decisions
    stored when they started (read once, not once per flow), and their progress."""

    kept: list[str]  # the recipes that flow on (no guard rejected them), in stored order
    recipes: dict[str, tuple[int, Recipe]]
    decisions: dict[Question, dict[str, PanelDecision]]
    alignment: Tally
    cases: Tally


@dataclass(frozen=True)
class RecipeOutcome:
    """What one recipe flow produced: whether its recipe was aligned (its family's cases were
    then written and decided), and the budget stop that ended it early, if one did."""

    recipe_id: str
    aligned: bool
    budget_stop: BudgetExceeded | None = None


async def run_all(
    stage: str, items: Iterable[T], work: Callable[[T], Awaitable[None]], progress: Progress
) -> None:
    """Run `work` over items concurrently; the first unexpected error cancels the rest.

    Expected failures (a model or scorer error) are recorded inside `work`; what
    escapes here (a budget stop, a bug) must stop the stage, not be swallowed. A
    budget stop lets the work already under way finish first: a call that was
    already sent is paid for, so its answer must reach the cache (cancelled, it
    would be bought again on the rerun, which then stops at the same place).
    """
    items = list(items)
    done = 0
    budget_stop: BudgetExceeded | None = None
    progress(stage, 0, len(items))

    async def one(item: T) -> None:
        nonlocal done, budget_stop
        try:
            await work(item)
        except BudgetExceeded as exc:
            budget_stop = budget_stop or exc
            return
        done += 1
        progress(stage, done, len(items))

    try:
        async with asyncio.TaskGroup() as group:
            for item in items:
                group.create_task(one(item))
    except ExceptionGroup as failed:
        raise failed.exceptions[0] from None
    if budget_stop is not None:
        raise budget_stop
