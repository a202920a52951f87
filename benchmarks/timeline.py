"""Where a pipeline run's wall time goes: every call's wait for a slot, its slot time, its rank.

Why: `bench_pipeline.py` says how far a run is from the ideal; this says where the rest
went (the start, a thin tail, each call's own overhead), which is what an ordering or
transport change has to move (docs/performance.md). It runs `sane generate` once against
the loopback fake server, like part 3 of the benchmark, and instruments the client: when
each uncached call was ready, when it got its slot, when it gave it back, and its rank.

It prints the wall time against the calls' bound and against the rounds' bound (the
capabilities call, then the recipe calls, each a round of its own before anything else can
start, then the rest of the calls `concurrency` at a time: no schedule is shorter), the
mean slot time of a call, the slots in use and the calls waiting by 100 ms interval, and
the last calls to finish. Its last line is one JSON object: wall_s, calls, calls_bound_s,
rounds_bound_s, slot_ms_mean, tail_s (from the last interval with a call waiting to the
end).

`--transport memory` answers each call in this process (the fake server's own panel, after
the same latency) instead of over loopback HTTP: the same client, slots, cache and store,
with a transport that costs nothing, which separates what the client's order and CPU cost
from what the machine's loopback costs.

Run:  .venv/bin/python benchmarks/timeline.py [--families 10] [--concurrency 32]
                                              [--transport memory]
"""

from __future__ import annotations

import argparse
import contextlib
import contextvars
import json
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench_pipeline import fake_server, generate, memory_transport, rounds_bound

from sane.llm import _client, _slots


@dataclass
class Call:
    task: str
    rank: int
    ready: float
    start: float = 0.0
    end: float = 0.0


@contextlib.contextmanager
def recording() -> Iterator[list[Call]]:
    """Every uncached call the client makes inside, in order of readiness; the client is
    restored on the way out."""
    calls: list[Call] = []
    current: contextvars.ContextVar[Call | None] = contextvars.ContextVar("call", default=None)
    calling, hold = _client.LLMClient._call_with_retries, _slots.RankedSlots.hold

    async def call_with_retries(self: Any, *args: Any) -> Any:
        # args: key, route, model, messages, params, task, sample_index
        call = Call(args[5], _slots.current_rank(), time.perf_counter())
        calls.append(call)
        current.set(call)
        try:
            return await calling(self, *args)
        finally:
            call.end = time.perf_counter()

    @contextlib.asynccontextmanager
    async def timed_hold(self: Any, rank: int = 0) -> AsyncIterator[None]:
        async with hold(self, rank):
            call = current.get()
            if call is not None:
                call.start = time.perf_counter()
            yield

    _client.LLMClient._call_with_retries = call_with_retries  # type: ignore[method-assign]
    _slots.RankedSlots.hold = timed_hold  # type: ignore[method-assign]
    try:
        yield calls
    finally:
        _client.LLMClient._call_with_retries = calling  # type: ignore[method-assign]
        _slots.RankedSlots.hold = hold  # type: ignore[method-assign]


TRANSPORTS = {"http": fake_server, "memory": memory_transport}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", type=int, default=10)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--transport", choices=sorted(TRANSPORTS), default="http")
    args = parser.parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="sane-timeline-"))
    with fake_server(0.0) as url:  # imports and connection pools, as the benchmark does
        generate(url, workdir, "warm-up", families=1, concurrency=32, seed=99)
    transport = TRANSPORTS[args.transport]
    with recording() as recorded, transport(args.latency) as url:
        began = time.perf_counter()
        run = generate(url, workdir, "run", families=args.families, concurrency=args.concurrency)
    calls = [c for c in recorded if c.start]
    for c in calls:
        c.ready, c.start, c.end = c.ready - began, c.start - began, c.end - began
    bound = run.calls * args.latency / args.concurrency
    recipe_calls = sum(c.task == "recipes" for c in calls)
    rounds = rounds_bound(len(calls), recipe_calls, args.latency, args.concurrency)
    slot_ms = 1000 * statistics.mean(c.end - c.start for c in calls)
    print(
        f"{run.calls} calls in {run.wall_s:.2f} s ({args.transport}); calls x latency / "
        f"concurrency {bound:.2f} s ({bound / run.wall_s:.0%}); the rounds' bound "
        f"{rounds:.2f} s ({rounds / run.wall_s:.0%}); a call held its slot {slot_ms:.1f} ms "
        f"on average for a {1000 * args.latency:.0f} ms reply"
    )
    print("interval  slots in use  waiting")
    step, last_wait = 0.1, 0.0
    for i in range(int(run.wall_s / step) + 1):
        low, high = i * step, (i + 1) * step
        busy = sum(max(0.0, min(high, c.end) - max(low, c.start)) for c in calls) / step
        waiting = sum(c.ready <= low + step / 2 < c.start for c in calls)
        if waiting:
            last_wait = high
        print(f"{low:5.1f} s  {busy:12.1f}  {waiting:7d}")
    print("last calls to finish (task, rank, ready, slot, end):")
    for c in sorted(calls, key=lambda c: c.end)[-8:]:
        print(f"   {c.task:<20} {c.rank:>8} {c.ready:6.2f} {c.start:6.2f} {c.end:6.2f}")
    print(
        json.dumps(
            {
                "wall_s": round(run.wall_s, 3),
                "calls": run.calls,
                "calls_bound_s": round(bound, 3),
                "rounds_bound_s": round(rounds, 3),
                "slot_ms_mean": round(slot_ms, 2),
                "tail_s": round(run.wall_s - last_wait, 2),
            }
        )
    )


if __name__ == "__main__":
    main()
