"""The method as two LangGraph graphs, each read top to bottom; every node is named by the
`records.Stage` it completes, the name its done-mark, error records and progress use.

generate:
    capabilities -> recipes
    -> cases (one per recipe, in parallel: alignment, its mirror, then its family's cases,
       case panel and planted controls; no recipe waits for another)
    -> case_panel -> controls -> families
execute:
    execute -> report

One resume mechanism: the suite store. Every stage writes each finished item to the store
at once and does only what is missing there (a stage that finished marks itself done), so a
rerun of an interrupted run starts at the top, skips what is stored and replays every LLM
call it had completed from the cache. The graphs keep no checkpoint of their own.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
from collections.abc import Awaitable, Callable, Iterator
from typing import Literal, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send

from sane import stages
from sane._runtime import RunContext
from sane.records import Stage

Mode = Literal["generate", "execute"]


class State(TypedDict, total=False):
    recipe_ids: list[str]  # the recipes the recipes node sends on, one cases flow each
    recipe_id: str  # the recipe one cases flow carries


StageFunction = Callable[[RunContext], Awaitable[None]]


def _node(*steps: StageFunction) -> Callable[..., Awaitable[State]]:
    """One node that runs stage functions in order; stages keep no graph state."""

    async def node(state: State, runtime: Runtime[RunContext]) -> State:
        for step in steps:
            await step(runtime.context)
        return {}

    node.__name__ = "_then_".join(step.__name__ for step in steps)
    return node


async def _recipes(state: State, runtime: Runtime[RunContext]) -> State:
    """Derive the recipes, then plan the ones that flow on, one `cases` flow each."""
    await stages.derive_recipes(runtime.context)
    return {"recipe_ids": await stages.plan_recipe_flows(runtime.context)}


def _send_recipes(state: State) -> list[Send] | str:
    """One `cases` flow per planned recipe; straight to the case panel when there is none."""
    return [Send(Stage.cases, {"recipe_id": r}) for r in state.get("recipe_ids", [])] or (
        Stage.case_panel
    )


async def _recipe_flow(state: State, runtime: Runtime[RunContext]) -> State:
    await stages.recipe_flow(runtime.context, state["recipe_id"])
    return {}


def _chain(graph: StateGraph, *names: str) -> None:
    for before, after in itertools.pairwise(names):
        graph.add_edge(before, after)


def generate_graph() -> StateGraph:
    graph = StateGraph(State, context_schema=RunContext)
    graph.add_node(Stage.capabilities, _node(stages.derive_capabilities))
    graph.add_node(Stage.recipes, _recipes)
    graph.add_node(Stage.cases, _recipe_flow)
    # Where the flows meet (a budget stop in any ends the run here), then any case an
    # interrupted or older run left without a decision.
    graph.add_node(Stage.case_panel, _node(stages.join_recipes, stages.validate_cases))
    graph.add_node(Stage.controls, _node(stages.decide_controls))
    graph.add_node(Stage.families, _node(stages.select_families))
    _chain(graph, START, Stage.capabilities, Stage.recipes)
    graph.add_conditional_edges(Stage.recipes, _send_recipes, [Stage.cases, Stage.case_panel])
    _chain(graph, Stage.cases, Stage.case_panel, Stage.controls, Stage.families, END)
    return graph


def execute_graph() -> StateGraph:
    graph = StateGraph(State, context_schema=RunContext)
    graph.add_node(Stage.execute, _node(stages.execute_targets))
    graph.add_node(Stage.report, _node(stages.write_report))
    _chain(graph, START, Stage.execute, Stage.report, END)
    return graph


GRAPHS: dict[Mode, Callable[[], StateGraph]] = {
    "generate": generate_graph,
    "execute": execute_graph,
}


@contextlib.contextmanager
def _startup_heap_frozen() -> Iterator[None]:
    """Keep the garbage collector's full passes off the objects that exist when a run starts.

    Why: the imported libraries (litellm, LangGraph, pydantic models) leave about 450,000
    objects for the collector to track, and a full pass over them took 0.2 s of CPU, during
    which no reply is read and no call is sent: in a 4.5 s run of 540 calls it stalled
    every call in flight at once (benchmarks/bench_pipeline.py). Frozen, those objects are
    skipped; the run's own objects are collected as usual, and the frozen ones return to
    the collector when the run ends, so a long-lived process keeps no garbage for good.
    """
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


async def run(context: RunContext, mode: Mode) -> None:
    """Run one mode's graph on the suite in `context.store` (a rerun resumes from the store;
    the targets to execute are `context.targets`)."""
    try:
        with _startup_heap_frozen():
            await GRAPHS[mode]().compile().ainvoke({}, context=context)
    finally:
        await context.llm.aclose()
