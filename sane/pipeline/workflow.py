"""The method as two LangGraph graphs, each read top to bottom; every node is named by the
`records.Stage` it completes, the name its done-mark, error records and progress use.

generate:
    capabilities -> recipes
    -> cases (one per recipe, in parallel: alignment, its mirror, then its family's cases,
       case panel and planted controls; no recipe waits for another)
    -> case_panel -> controls -> families
execute:
    execute -> inflation (each target's score-inflation search: no oracle)
    -> comparison (a comparative spec's targets audited for position, length and
       self-praise bias and the rest of sane.pairwise: no oracle) -> report

Each node returns what it produced (`State`): the capabilities to the recipes node, the
recipes and what their flows share to the flows, each flow's outcome to the join. One
resume mechanism: the suite store. Every stage writes each finished item to the store at
once and does only what is missing there (a stage that finished marks itself done and
returns what it had stored), so a rerun of an interrupted run starts at the top, skips
what is stored and replays every LLM call it had completed from the cache. The graphs keep
no checkpoint of their own.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import operator
from collections.abc import Callable, Iterator
from typing import Annotated, Literal, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send

from sane.comparison_record import ComparisonAudit
from sane.manipulations import SearchResult
from sane.pipeline import comparison, execution, generate, inflation, resume
from sane.pipeline._runtime import RecipeFlows, RecipeOutcome, RunContext
from sane.records import Capability, Family, Recipe, Stage
from sane.reporting import Report

Mode = Literal["generate", "execute"]


class State(TypedDict, total=False):
    """What each node produced. Before the join (`case_panel`) it carries what the next node
    reads: the capabilities to `recipes`, the recipes and what their flows share into each
    `cases` flow's Send, each flow's outcome (a budget stop among them) into the join. After
    the join no node reads it: every later stage reads the store instead, because a rerun
    skips the stages already marked done and must find their work where a fresh run would
    (the store is the one resume mechanism); those keys are what `run` returns, for its
    caller to inspect."""

    capabilities: list[Capability]  # capabilities
    recipes: list[Recipe]  # recipes
    flows: RecipeFlows | None  # recipes: what the cases flows share (None: all finished)
    recipe_id: str  # the recipe one cases flow carries
    outcomes: Annotated[list[RecipeOutcome], operator.add]  # cases: one per flow
    recovered_cases: list[str]  # case_panel: cases an earlier run left undecided
    recovered_controls: list[str]  # controls: controls the flows did not decide
    families: list[Family]  # families
    executed: dict[str, int]  # execute: cases each target ran
    inflation: dict[str, SearchResult]  # inflation: each target's score-inflation search
    comparison: dict[str, ComparisonAudit]  # comparison: each comparative target's audit
    report: Report  # report


async def _capabilities(state: State, runtime: Runtime[RunContext]) -> State:
    return {"capabilities": await generate.derive_capabilities(runtime.context)}


async def _recipes(state: State, runtime: Runtime[RunContext]) -> State:
    """Derive the recipes, then plan the ones that flow on, one `cases` flow each."""
    recipes = await generate.derive_recipes(runtime.context, state["capabilities"])
    return {"recipes": recipes, "flows": generate.plan_recipe_flows(runtime.context, recipes)}


def _send_recipes(state: State) -> list[Send] | str:
    """One `cases` flow per planned recipe; straight to the case panel when there is none."""
    flows = state.get("flows")
    kept = flows.kept if flows is not None else []
    return [Send(Stage.cases, {"recipe_id": r, "flows": flows}) for r in kept] or Stage.case_panel


async def _recipe_flow(state: State, runtime: Runtime[RunContext]) -> State:
    flows = state["flows"]
    assert flows is not None
    return {"outcomes": [await generate.recipe_flow(runtime.context, flows, state["recipe_id"])]}


async def _case_panel(state: State, runtime: Runtime[RunContext]) -> State:
    """Where the flows meet (a budget stop in any ends the run here), then any case an
    interrupted or older run left without a decision."""
    generate.join_recipes(runtime.context, state.get("outcomes", []))
    return {"recovered_cases": await resume.validate_cases(runtime.context)}


async def _controls(state: State, runtime: Runtime[RunContext]) -> State:
    return {"recovered_controls": await resume.decide_controls(runtime.context)}


async def _families(state: State, runtime: Runtime[RunContext]) -> State:
    return {"families": await generate.select_families(runtime.context)}


async def _execute(state: State, runtime: Runtime[RunContext]) -> State:
    return {"executed": await execution.execute_targets(runtime.context)}


async def _inflation(state: State, runtime: Runtime[RunContext]) -> State:
    return {"inflation": await inflation.search_inflation(runtime.context)}


async def _comparison(state: State, runtime: Runtime[RunContext]) -> State:
    return {"comparison": await comparison.audit_comparisons(runtime.context)}


async def _report(state: State, runtime: Runtime[RunContext]) -> State:
    return {"report": await execution.write_report(runtime.context)}


def _chain(graph: StateGraph, *names: str) -> None:
    for before, after in itertools.pairwise(names):
        graph.add_edge(before, after)


def generate_graph() -> StateGraph:
    graph = StateGraph(State, context_schema=RunContext)
    graph.add_node(Stage.capabilities, _capabilities)
    graph.add_node(Stage.recipes, _recipes)
    graph.add_node(Stage.cases, _recipe_flow)
    graph.add_node(Stage.case_panel, _case_panel)
    graph.add_node(Stage.controls, _controls)
    graph.add_node(Stage.families, _families)
    _chain(graph, START, Stage.capabilities, Stage.recipes)
    graph.add_conditional_edges(Stage.recipes, _send_recipes, [Stage.cases, Stage.case_panel])
    _chain(graph, Stage.cases, Stage.case_panel, Stage.controls, Stage.families, END)
    return graph


def execute_graph() -> StateGraph:
    graph = StateGraph(State, context_schema=RunContext)
    graph.add_node(Stage.execute, _execute)
    graph.add_node(Stage.inflation, _inflation)
    graph.add_node(Stage.comparison, _comparison)
    graph.add_node(Stage.report, _report)
    _chain(graph, START, Stage.execute, Stage.inflation, Stage.comparison, Stage.report, END)
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


async def run(context: RunContext, mode: Mode) -> State:
    """Run one mode's graph on the suite in `context.store` (a rerun resumes from the store;
    the targets to execute are `context.targets`); what its nodes produced."""
    try:
        with _startup_heap_frozen():
            return await GRAPHS[mode]().compile().ainvoke({}, context=context)
    finally:
        await context.llm.aclose()
