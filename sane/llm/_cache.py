"""Content-addressed SQLite cache of LLM responses.

Every successful call is stored under a key derived from everything that
determines the answer (model, messages, parameters, sample index), so k votes
are k entries and a rerun replays a whole suite without a provider call. The
file is opened in WAL mode with a busy timeout and every write commits at
once, so several processes can share it and a killed run keeps its completed
calls.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlite_utils
from pydantic import BaseModel

TABLE = "llm_calls"
BUSY_TIMEOUT_MS = 30_000


class CachedResponse(BaseModel):
    """One stored response and what it cost when it was made."""

    key: str
    model: str
    task: str
    sample_index: int
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    latency_s: float = 0.0
    created: str = ""


def call_key(
    model: str, messages: list[dict[str, str]], params: dict[str, Any], sample_index: int
) -> str:
    """sha256 of the canonical JSON of everything that determines the answer."""
    payload = {
        "model": model,
        "messages": messages,
        "params": params,
        "sample_index": sample_index,
    }
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ResponseCache:
    """A single-table store of responses keyed by `call_key`."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(
            str(path), timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False, isolation_level=None
        )
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        self._lock = threading.Lock()
        self._db = sqlite_utils.Database(conn)
        self._table = self._db.table(TABLE)
        with self._lock:
            self._table.create(
                {
                    "key": str,
                    "model": str,
                    "task": str,
                    "sample_index": int,
                    "text": str,
                    "prompt_tokens": int,
                    "completion_tokens": int,
                    "cost": float,
                    "latency_s": float,
                    "created": str,
                },
                pk="key",
                if_not_exists=True,
            )

    # get and put are on the path of every call, so they are plain statements: sqlite-utils'
    # rows_where/upsert inspect the schema first and cost a millisecond a call.
    def get(self, key: str) -> CachedResponse | None:
        with self._lock:
            cursor = self._db.conn.execute(f"select * from {TABLE} where key = ?", [key])
            row = cursor.fetchone()
            names = [d[0] for d in cursor.description] if row is not None else []
        return CachedResponse(**dict(zip(names, row, strict=True))) if row is not None else None

    def put(self, entry: CachedResponse) -> None:
        """Store (or overwrite) one response; committed before returning (autocommit)."""
        row = entry.model_dump()
        row["created"] = row["created"] or datetime.now(UTC).isoformat()
        columns = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        with self._lock:
            self._db.conn.execute(
                f"insert or replace into {TABLE} ({columns}) values ({marks})", list(row.values())
            )

    def count(self) -> int:
        with self._lock:
            return self._table.count

    def close(self) -> None:
        with self._lock:
            self._db.close()
