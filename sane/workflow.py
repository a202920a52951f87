"""The method as two LangGraph graphs, each read top to bottom.

generate: capabilities -> recipes -> recipe alignment (with mirror controls) -> cases ->
case panel -> case controls -> families. execute: execute -> report. Every stage writes
each finished item to the suite store at once and skips items already there; each graph is
checkpointed in the same SQLite file (one thread per mode and target set), so an interrupted
run resumes at the stage it stopped in, and the LLM cache replays every call it had
completed.
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


def _node(stage: Callable[[RunContext], Awaitable[None]]) -> Callable[..., Awaitable[State]]:
    """Adapt a stage to LangGraph's node signature; stages keep no graph state."""

    async def node(state: State, runtime: Runtime[RunContext]) -> State:
        await stage(runtime.context)
        return {}

    node.__name__ = stage.__name__
    return node


Stage = Callable[[RunContext], Awaitable[None]]

# Each mode's nodes (name, stage), in the order they run. The names are those of the
# checkpoints already in suite files: an interrupted run resumes at its node.
GENERATE: tuple[tuple[str, Stage], ...] = (
    ("derive_capabilities", stages.derive_capabilities),
    ("derive_recipes", stages.derive_recipes),
    ("align_recipes", stages.align_recipes),
    ("instantiate_cases", stages.instantiate_cases),
    ("validate_cases", stages.validate_cases),
    ("decide_controls", stages.decide_controls),
    ("select_families", stages.select_families),
)
EXECUTE: tuple[tuple[str, Stage], ...] = (
    ("execute", stages.execute_targets),
    ("report", stages.write_report),
)
GRAPHS = {"generate": GENERATE, "execute": EXECUTE}


def build_graph(mode: Literal["generate", "execute"]) -> StateGraph:
    """The mode's stages as a chain of nodes, START to END in the order they run."""
    graph = StateGraph(State, context_schema=RunContext)
    previous = START
    for name, stage in GRAPHS[mode]:
        graph.add_node(name, _node(stage))
        graph.add_edge(previous, name)
        previous = name
    graph.add_edge(previous, END)
    return graph


async def run(context: RunContext, state: State) -> None:
    """Run (or resume) the graph for one mode on the suite file in `context.store`."""
    thread = f"{state['mode']}:{','.join(sorted(state.get('targets', [])))}"
    config = {"configurable": {"thread_id": thread}}
    async with AsyncSqliteSaver.from_conn_string(str(context.store.path)) as saver:
        app = build_graph(state["mode"]).compile(checkpointer=saver)
        snapshot = await app.aget_state(config)
        resume = bool(snapshot.next)
        # "sync": a checkpoint is committed before the next stage starts writing to the
        # same file from this thread, so the two connections never wait on each other.
        await app.ainvoke(None if resume else state, config, context=context, durability="sync")
