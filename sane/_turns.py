"""Turns on a resource that serves one call at a time (an embedded model).

A local model answers one call at a time, so concurrent callers queue for it.
A timeout that starts before a caller's turn would count the others' calls,
and on a slow machine a call that never ran would "time out". Callers
therefore take their turn here first and start any timeout inside it. The
locks are per event loop (asyncio locks are bound to one loop; the CLI, tests
and benchmarks each run their own).
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from typing import Any


class Turns:
    """One lock per resource key and event loop; no key means no queue."""

    def __init__(self) -> None:
        self._locks: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[str, asyncio.Lock]
        ] = weakref.WeakKeyDictionary()

    def of(self, key: str | None) -> contextlib.AbstractAsyncContextManager[Any]:
        if key is None:
            return contextlib.nullcontext()
        locks = self._locks.setdefault(asyncio.get_running_loop(), {})
        return locks.setdefault(key, asyncio.Lock())
