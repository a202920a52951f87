"""The clock of one timed call (a target's score under its `--timeout`), stopped while a
model call under it waits for its turn, restarted in full when the call is sent.

Why: a target's per-call timeout wraps everything its call does, and a model call queues
before it is sent: for a concurrency slot, for a server's own limit (a server that serves
one request at a time, `sane.llm._slots.RankedSlots.narrow`), for an embedded model's turn
and its loading, for a retry's backoff. Counted, those waits made calls that never ran
"time out" (a judge on such a server: 9 of 12 calls at concurrency 8 and a 60 s timeout).
So every wait runs inside `waiting()`, which stops the clock of the call it belongs to
(a context variable: the client needs no parameter for it), and the clock restarts with
the full time, plus a grace that lets the client's own timeout of the sent request fire
first (it narrows the server's limit and retries, `sane.llm._client`). A call that ends
in a timeout anyway says what it waited for (`describe`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Iterator
from contextvars import ContextVar

SEND_GRACE_S = 5.0  # the request's own timeout fires first, inside this grace


class CallClock:
    """A running `asyncio.Timeout` of `seconds`, stopped during waits."""

    def __init__(self, timeout: asyncio.Timeout, seconds: float) -> None:
        self._timeout = timeout
        self.seconds = seconds
        self._waits = 0  # nested or concurrent waits of this call
        self._since = 0.0
        self.waited_s = 0.0
        self.behind = 0  # the most calls this one was queued behind

    def stop(self, behind: int) -> None:
        self.behind = max(self.behind, behind)
        if self._waits == 0:
            self._timeout.reschedule(None)
            self._since = time.monotonic()
        self._waits += 1

    def restart(self) -> None:
        self._waits -= 1
        if self._waits == 0:
            self.waited_s += time.monotonic() - self._since
            loop = asyncio.get_running_loop()
            self._timeout.reschedule(loop.time() + self.seconds + SEND_GRACE_S)

    def describe(self) -> str:
        """What the call waited for before it was sent, for its timeout's message."""
        if self.waited_s < 0.05:
            return ""
        behind = f" queued behind {self.behind} call(s)" if self.behind else ""
        return f" (counted from when it was sent; it waited {self.waited_s:.1f}s{behind} first)"


CLOCK: ContextVar[CallClock | None] = ContextVar("sane_call_clock", default=None)


@contextlib.asynccontextmanager
async def timed_call(seconds: float) -> AsyncIterator[CallClock]:
    """A timeout of `seconds` over the block (TimeoutError past it), stopped while a model
    call inside waits its turn."""
    async with asyncio.timeout(seconds) as timeout:
        clock = CallClock(timeout, seconds)
        token = CLOCK.set(clock)
        try:
            yield clock
        finally:
            CLOCK.reset(token)


@contextlib.contextmanager
def waiting(behind: int = 0) -> Iterator[None]:
    """Stop the current timed call's clock over the block (a wait, not work); outside a
    timed call it does nothing."""
    clock = CLOCK.get()
    if clock is None:
        yield
        return
    clock.stop(behind)
    try:
        yield
    finally:
        clock.restart()


def request_timeout(default_s: float) -> float:
    """The timeout of a request sent now: its own, or the timed call's if that is shorter
    (so the request's timeout fires first and the client can narrow and retry)."""
    clock = CLOCK.get()
    return default_s if clock is None else min(default_s, clock.seconds)
