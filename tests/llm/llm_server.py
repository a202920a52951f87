"""A loopback OpenAI-compatible chat server for the LLM layer's tests.

Replies come from a queue (then a default), and every request body and header
set is kept, so tests can drive 429/500 sequences and inspect what was sent.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    content: str = "ok"
    headers: dict[str, str] = field(default_factory=dict)
    prompt_tokens: int = 10
    completion_tokens: int = 5


@dataclass
class FakeOpenAI:
    """A loopback OpenAI-compatible server; replies come from a queue, then the default."""

    base_url: str
    replies: list[Reply] = field(default_factory=list)
    default: Reply = field(default_factory=Reply)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)  # as requested: absolute through a proxy
    lock: threading.Lock = field(default_factory=threading.Lock)
    # a reply chosen by the request (None: the queue's), as a server that refuses a format
    respond: Callable[[dict[str, Any]], Reply | None] | None = None
    # > 0: one request at a time, each taking this long, and a request whose client has gone
    # by its turn is dropped unanswered (llama-cpp-python's server does both)
    serial_s: float = 0.0
    turn: threading.Lock = field(default_factory=threading.Lock)
    served: int = 0  # requests answered in a serial turn

    def next_reply(self, body: dict[str, Any], headers: dict[str, str]) -> Reply:
        with self.lock:
            self.requests.append(body)
            self.headers.append(headers)
            chosen = self.respond(body) if self.respond is not None else None
            if chosen is not None:
                return chosen
            return self.replies.pop(0) if self.replies else self.default


def _client_gone(connection: socket.socket) -> bool:
    """Whether the client closed its connection (readable, and nothing to read)."""
    readable, _, _ = select.select([connection], [], [], 0)
    return bool(readable) and connection.recv(1, socket.MSG_PEEK) == b""


def _completion(reply: Reply, model: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply.content},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
        },
    }


@contextmanager
def serve() -> Iterator[FakeOpenAI]:
    state: dict[str, FakeOpenAI] = {}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            fake = state["fake"]
            fake.paths.append(self.path)
            reply = fake.next_reply(body, {k.lower(): v for k, v in self.headers.items()})
            if fake.serial_s > 0:
                with fake.turn:
                    if _client_gone(self.connection):
                        return
                    time.sleep(fake.serial_s)
                    fake.served += 1
            if not self.path.endswith("/chat/completions"):
                reply = Reply(status=404, content="no such route")
            if reply.status == 200:
                payload = _completion(reply, body.get("model", ""))
            else:
                payload = {"error": {"message": reply.content, "type": "test", "code": None}}
            data = json.dumps(payload).encode()
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state["fake"] = FakeOpenAI(base_url=f"http://127.0.0.1:{server.server_address[1]}/v1")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state["fake"]
    finally:
        server.shutdown()
        server.server_close()
