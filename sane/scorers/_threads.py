"""Run a blocking function of a scorer off the event loop, in a daemon thread.

Why not asyncio's default executor: the executor's threads are joined when the process ends,
so one call that never returns (a hanging user function, a runaway rubric render) would keep
the process alive after the run; a daemon thread is abandoned instead. Running off the loop is
what lets the executor's per-call timeout fire at all: a function running on the loop blocks
the timer with it.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any


def contained(exc: BaseException) -> RuntimeError:
    """Code that raises SystemExit or KeyboardInterrupt has failed; asyncio would let either
    escape the event loop and end (or hang) the whole run, so it becomes an error."""
    return RuntimeError(f"{type(exc).__name__} raised by the scoring function: {exc}")


async def in_daemon_thread(function: Callable[..., Any], *args: Any, name: str) -> Any:
    """`function(*args)` in a new daemon thread named `name`, awaited; its exception is
    raised here (SystemExit and KeyboardInterrupt as `contained` errors)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(outcome: Callable[[], None]) -> None:
        if not future.done():
            outcome()

    def deliver(outcome: Callable[[], None]) -> None:
        try:
            loop.call_soon_threadsafe(settle, outcome)
        except RuntimeError:  # the run ended (a timed-out call finishing late)
            pass

    def run() -> None:
        try:
            value = function(*args)
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting task
            error = contained(exc) if isinstance(exc, KeyboardInterrupt | SystemExit) else exc
            deliver(lambda: future.set_exception(error))
        else:
            deliver(lambda: future.set_result(value))

    threading.Thread(target=run, daemon=True, name=name).start()
    return await future
