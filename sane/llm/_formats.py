"""Which `response_format` a server takes for structured calls, learnt once per server.

Why: OpenAI's `json_schema` is not universal. llama-cpp-python's server answers it with a
500 ("Input should be 'text' or 'json_object'"), TGI with a 422; retried as a transient
error, every structured call failed four times. A structured call therefore asks for the
strongest format first and, when the server refuses that format (`sane.llm._retry.
format_refused`), steps down once for that server (its API base and model) and the rest of
the run: `json_schema`, then `json_object` carrying the schema (llama-cpp-python and some
others turn it into a grammar), then plain `json_object`, then no format at all. The
prompt shows the reply's shape on every rung and the reply is validated with pydantic
(`sane.llm._structured`), so the last rung works with any server.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

from pydantic import BaseModel

from sane._turns import Turns
from sane.llm import _structured
from sane.llm._call_clock import waiting

RUNGS = ("json_schema", "json_object with schema", "json_object", "prompt only")


def request_format(rung: str, schema: type[BaseModel]) -> dict[str, Any] | None:
    """The `response_format` a rung sends (None: the prompt alone states the shape)."""
    if rung == "json_schema":
        return _structured.response_format(schema)
    if rung == "json_object with schema":
        return {"type": "json_object", "schema": json.loads(_structured.schema_json(schema))}
    if rung == "json_object":
        return {"type": "json_object"}
    return None


class FormatLadder:
    """The rung each server is on (all start at the top); one client's memory, one run's.

    Until a server has answered one rung, its structured calls go one at a time (`learning`),
    so each refused format is sent once, not once per call in flight."""

    def __init__(self) -> None:
        self._rung: dict[str, int] = {}
        self._answered: set[str] = set()
        self._turns = Turns()

    def rung(self, server: str) -> str:
        return RUNGS[self._rung.get(server, 0)]

    @contextlib.asynccontextmanager
    async def learning(self, server: str) -> AsyncIterator[None]:
        """One call at a time while `server`'s format is not known (its clock stopped
        while it waits: sane.llm._call_clock); none once it is."""
        if server in self._answered:
            yield
            return
        turn = self._turns.of(server)
        with waiting():
            await turn.acquire()
        try:
            yield
        finally:
            turn.release()

    def answered(self, server: str) -> None:
        """`server` took its current rung: later calls need not wait to learn it."""
        self._answered.add(server)

    def refused(self, server: str, rung: str) -> str:
        """Step `server` below `rung` (once: calls sent together are refused together);
        the rung it is on now."""
        at = self._rung.get(server, 0)
        if RUNGS[at] == rung and at + 1 < len(RUNGS):
            self._rung[server] = at + 1
        return self.rung(server)
