"""The client's concurrency slots, handed out by rank when calls wait for one.

Why: with more calls ready than slots, the order in which waiting calls get a slot
decides how long a run takes. First come, first served lets the short last steps of
the work already under way (a case's votes) queue ahead of the calls that start long
chains (writing a case, which then needs its votes), so chains started late finish
late and the run ends on a thin tail of them. The caller that knows the flow ranks its
calls (`with ranked(n):` around them; `sane.call_order` ranks the calls with the most work
after them first) and the slots serve the lowest rank first, in arrival order within a
rank. A rank can be a function, asked when a call starts waiting (a family's rank changes
as its cases are decided). A call made outside any `ranked` block has rank 0: first come,
first served.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
from collections.abc import AsyncIterator, Callable, Iterator
from contextvars import ContextVar

Rank = int | Callable[[], int]
CALL_RANK: ContextVar[Rank] = ContextVar("sane_call_rank", default=0)


@contextlib.contextmanager
def ranked(rank: Rank) -> Iterator[None]:
    """Calls made inside (and in tasks started inside) wait for a slot with this rank."""
    token = CALL_RANK.set(rank)
    try:
        yield
    finally:
        CALL_RANK.reset(token)


def current_rank() -> int:
    """The rank a call made here waits with (a rank function is asked now)."""
    rank = CALL_RANK.get()
    return rank() if callable(rank) else rank


class RankedSlots:
    """At most `size` holders at once; waiters are served lowest rank first, then in
    arrival order. Bound to the event loop that first waits on it."""

    def __init__(self, size: int) -> None:
        self._free = size
        self._waiting: list[tuple[int, int, asyncio.Future[None]]] = []
        self._arrival = itertools.count()

    @contextlib.asynccontextmanager
    async def hold(self, rank: int = 0) -> AsyncIterator[None]:
        if self._free > 0 and not self._waiting:
            self._free -= 1
        else:
            turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            heapq.heappush(self._waiting, (rank, next(self._arrival), turn))
            try:
                await turn
            except asyncio.CancelledError:
                if turn.done() and not turn.cancelled():
                    self._release()  # handed a slot just as it was cancelled: pass it on
                raise
        try:
            yield
        finally:
            self._release()

    def _release(self) -> None:
        """Hand the slot to the first waiter still waiting, else free it."""
        while self._waiting:
            _, _, turn = heapq.heappop(self._waiting)
            if not turn.done():
                turn.set_result(None)
                return
        self._free += 1
