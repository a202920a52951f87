"""The method as one LangGraph graph, read top to bottom.

capabilities -> recipes -> recipe alignment (with mirror controls) -> cases ->
case panel -> case controls -> families -> execute -> report. Every stage writes each finished item to the suite store
at once and skips items already there; the graph is checkpointed in the same
SQLite file, so an interrupted run resumes at the stage it stopped in, and the
LLM cache replays every call it had completed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Literal, TypedDict

from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from sane import stages
from sane._runtime import RunContext


class State(TypedDict, total=False):
    mode: Literal["generate", "execute"]
    targets: list[str]


def _entry(state: State) -> str:
    return "execute" if state.get("mode") == "execute" else "derive_capabilities"


def _after_families(state: State) -> str:
    return "execute" if state.get("mode") == "execute" else END


def _node(stage: Callable[[RunContext], Awaitable[None]]) -> Callable[..., Awaitable[State]]:
    """Adapt a stage to LangGraph's node signature; stages keep no graph state."""

    async def node(state: State, runtime: Runtime[RunContext]) -> State:
        await stage(runtime.context)
        return {}

    node.__name__ = stage.__name__
    return node


def build_graph() -> StateGraph:
    graph = StateGraph(State, context_schema=RunContext)
    graph.add_node("derive_capabilities", _node(stages.derive_capabilities))
    graph.add_node("derive_recipes", _node(stages.derive_recipes))
    graph.add_node("align_recipes", _node(stages.align_recipes))
    graph.add_node("instantiate_cases", _node(stages.instantiate_cases))
    graph.add_node("validate_cases", _node(stages.validate_cases))
    graph.add_node("decide_controls", _node(stages.decide_controls))
    graph.add_node("select_families", _node(stages.select_families))
    graph.add_node("execute", _node(stages.execute_targets))
    graph.add_node("report", _node(stages.write_report))

    graph.add_conditional_edges(START, _entry, ["derive_capabilities", "execute"])
    graph.add_edge("derive_capabilities", "derive_recipes")
    graph.add_edge("derive_recipes", "align_recipes")
    graph.add_edge("align_recipes", "instantiate_cases")
    graph.add_edge("instantiate_cases", "validate_cases")
    graph.add_edge("validate_cases", "decide_controls")
    graph.add_edge("decide_controls", "select_families")
    graph.add_conditional_edges("select_families", _after_families, ["execute", END])
    graph.add_edge("execute", "report")
    graph.add_edge("report", END)
    return graph


async def run(context: RunContext, state: State) -> None:
    """Run (or resume) the graph for one mode on the suite file in `context.store`."""
    thread = f"{state['mode']}:{','.join(sorted(state.get('targets', [])))}"
    config = {"configurable": {"thread_id": thread}}
    async with AsyncSqliteSaver.from_conn_string(str(context.store.path)) as saver:
        app = build_graph().compile(checkpointer=saver)
        snapshot = await app.aget_state(config)
        resume = bool(snapshot.next)
        # "sync": a checkpoint is committed before the next stage starts writing to the
        # same file from this thread, so the two connections never wait on each other.
        await app.ainvoke(None if resume else state, config, context=context, durability="sync")
