"""The client's concurrency slots, handed out by rank when calls wait for one.

Why: with more calls ready than slots, the order in which waiting calls get a slot
decides how long a run takes. First come, first served lets the short last steps of
the work already under way (a case's votes) queue ahead of the calls that start long
chains (writing a case, which then needs its votes), so chains started late finish
late and the run ends on a thin tail of them. The caller that knows the flow ranks its
calls (`with ranked(n):` around them; `sane.pipeline.call_order` ranks the calls with the most work
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
    arrival order. Bound to the event loop that first waits on it.

    `narrow` lowers `size` while slots are held (a server that times out on calls it
    queues itself, `sane.llm._client`): the holders above the new size finish, and no
    waiter is served until the holders are fewer than it.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._free = size  # below 0 after a narrowing, until enough holders leave
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

    @property
    def queued(self) -> int:
        """How many calls a call asking now is queued behind (the holders and the waiters),
        0 when it is served at once."""
        if self._free > 0 and not self._waiting:
            return 0
        return self.size - self._free + len(self._waiting)

    def narrow(self, seen: int) -> bool:
        """Halve the size, if it is still `seen` (the size a timed-out call was sent under):
        the calls sent together time out together, and narrow it once. Whether it did."""
        if seen != self.size or self.size <= 1:
            return False
        new = max(1, self.size // 2)
        self._free -= self.size - new
        self.size = new
        return True

    def _release(self) -> None:
        """Hand the slot to the first waiter still waiting, else free it (or, after a
        narrowing, retire it)."""
        if self._free < 0:
            self._free += 1
            return
        while self._waiting:
            _, _, turn = heapq.heappop(self._waiting)
            if not turn.done():
                turn.set_result(None)
                return
        self._free += 1
