"""The method as two LangGraph graphs, each read top to bottom.

generate:
    derive_capabilities -> derive_recipes -> plan_recipe_flows
    -> recipe_flow (one per recipe, in parallel: alignment, its mirror, then its family's
       cases and case panel; no recipe waits for another)
    -> join_recipes -> validate_cases -> decide_controls -> select_families
execute:
    execute -> report

One resume mechanism: the suite store. Every stage writes each finished item to the store
at once and does only what is missing there (a stage that finished marks itself done), so a
rerun of an interrupted run starts at the top, skips what is stored and replays every LLM
call it had completed from the cache. The graphs keep no checkpoint of their own.
"""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from typing import Literal, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send

from sane import stages
from sane._runtime import RunContext

Mode = Literal["generate", "execute"]


class State(TypedDict, total=False):
    recipe_ids: list[str]  # the recipes plan_recipe_flows sends on, one flow each
    recipe_id: str  # the recipe one recipe_flow carries


StageFunction = Callable[[RunContext], Awaitable[None]]


def _node(stage: StageFunction) -> Callable[..., Awaitable[State]]:
    """Adapt a stage to LangGraph's node signature; stages keep no graph state."""

    async def node(state: State, runtime: Runtime[RunContext]) -> State:
        await stage(runtime.context)
        return {}

    node.__name__ = stage.__name__
    return node


async def _plan_recipe_flows(state: State, runtime: Runtime[RunContext]) -> State:
    return {"recipe_ids": await stages.plan_recipe_flows(runtime.context)}


def _send_recipes(state: State) -> list[Send] | str:
    """One `recipe_flow` per planned recipe; straight to the join when there is none."""
    return [Send("recipe_flow", {"recipe_id": r}) for r in state.get("recipe_ids", [])] or (
        "join_recipes"
    )


async def _recipe_flow(state: State, runtime: Runtime[RunContext]) -> State:
    await stages.recipe_flow(runtime.context, state["recipe_id"])
    return {}


def _chain(graph: StateGraph, *names: str) -> None:
    for before, after in itertools.pairwise(names):
        graph.add_edge(before, after)


def generate_graph() -> StateGraph:
    graph = StateGraph(State, context_schema=RunContext)
    for stage in (
        stages.derive_capabilities,
        stages.derive_recipes,
        stages.join_recipes,
        stages.validate_cases,
        stages.decide_controls,
        stages.select_families,
    ):
        graph.add_node(stage.__name__, _node(stage))
    graph.add_node("plan_recipe_flows", _plan_recipe_flows)
    graph.add_node("recipe_flow", _recipe_flow)
    _chain(graph, START, "derive_capabilities", "derive_recipes", "plan_recipe_flows")
    graph.add_conditional_edges("plan_recipe_flows", _send_recipes, ["recipe_flow", "join_recipes"])
    _chain(
        graph,
        "recipe_flow",
        "join_recipes",
        "validate_cases",
        "decide_controls",
        "select_families",
        END,
    )
    return graph


def execute_graph() -> StateGraph:
    graph = StateGraph(State, context_schema=RunContext)
    graph.add_node("execute", _node(stages.execute_targets))
    graph.add_node("report", _node(stages.write_report))
    _chain(graph, START, "execute", "report", END)
    return graph


GRAPHS: dict[Mode, Callable[[], StateGraph]] = {
    "generate": generate_graph,
    "execute": execute_graph,
}


async def run(context: RunContext, mode: Mode) -> None:
    """Run one mode's graph on the suite in `context.store` (a rerun resumes from the store;
    the targets to execute are `context.targets`)."""
    try:
        await GRAPHS[mode]().compile().ainvoke({}, context=context)
    finally:
        await context.llm.aclose()
