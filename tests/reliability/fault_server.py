"""A loopback OpenAI-compatible server that can misbehave on purpose.

The reliability tests need real provider faults on the wire, not mocks: rate
limits with and without Retry-After, server errors, a reset connection, a
reply slower than the client's timeout, a body that is not JSON, an empty
message, a truncated or schema-invalid structured answer. Each request is
answered by the next queued `Action`, else by `responder(body)`, so a test can
script a fault sequence or make faults depend on the prompt (a permanent
fault for one case of a whole pipeline run).
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Ok:
    """A normal completion; `content=None` is an empty message (no text)."""

    content: str | None = "ok"
    finish_reason: str = "stop"
    prompt_tokens: int = 10
    completion_tokens: int = 5


@dataclass(frozen=True)
class Status:
    """An HTTP error with an OpenAI-style error body."""

    code: int
    message: str = "injected fault"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Reset:
    """Close the connection with a TCP reset before any response byte."""


@dataclass(frozen=True)
class Stall:
    """Wait `seconds` before answering `then` (longer than the client timeout)."""

    seconds: float
    then: Ok = field(default_factory=Ok)


@dataclass(frozen=True)
class Malformed:
    """HTTP 200 whose body is not valid JSON."""

    body: str = '{"id": "chatcmpl-x", "choices": [{"message": '


Action = Ok | Status | Reset | Stall | Malformed
Responder = Callable[[dict[str, Any]], Action]


@dataclass
class FaultServer:
    base_url: str
    queue: list[Action] = field(default_factory=list)
    responder: Responder = field(default=lambda body: Ok())
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next_action(self, body: dict[str, Any], headers: dict[str, str]) -> Action:
        with self.lock:
            self.requests.append(body)
            self.headers.append(headers)
            if self.queue:
                return self.queue.pop(0)
        return self.responder(body)


def completion(reply: Ok, model: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply.content},
                "finish_reason": reply.finish_reason,
            }
        ],
        "usage": {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
        },
    }


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that gave up (timeout, reset) is part of the test, not noise


@contextmanager
def serve(responder: Responder | None = None) -> Iterator[FaultServer]:
    state: dict[str, FaultServer] = {}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def _send(self, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            fake = state["fake"]
            action = fake.next_action(body, {k.lower(): v for k, v in self.headers.items()})
            model = str(body.get("model", ""))
            if isinstance(action, Stall):
                time.sleep(action.seconds)
                action = action.then
            match action:
                case Ok():
                    self._send(200, json.dumps(completion(action, model)).encode())
                case Status(code=code, message=message, headers=headers):
                    error = {"error": {"message": message, "type": "test", "code": None}}
                    self._send(code, json.dumps(error).encode(), headers)
                case Malformed(body=text):
                    self._send(200, text.encode())
                case Reset():
                    linger = struct.pack("ii", 1, 0)  # SO_LINGER 0: close sends RST
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
                    self.connection.close()
                    self.close_connection = True

    server = _Server(("127.0.0.1", 0), Handler)
    fake = FaultServer(base_url=f"http://127.0.0.1:{server.server_address[1]}/v1")
    if responder is not None:
        fake.responder = responder
    state["fake"] = fake
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
