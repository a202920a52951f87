"""Serve a suite's live HTML report on loopback (`sane view`).

Why a server rather than a file: a suite that is still being generated or executed
changes under the reader. The page polls ``/state``; the server answers with a
generation number that moves whenever another connection commits to the suite file
(SQLite's ``PRAGMA data_version``), and the page then reloads, re-rendered from the store.
Routes: ``/`` the HTML report, ``/report.json`` the JSON report, ``/state`` the generation,
``/review`` the review page (a person answers the panel's questions: sane.review._page) and
``POST /review/answer`` its one write.

Loopback only, in three ways: a non-loopback `--host` is refused before anything listens, a
peer that is not on loopback is closed without an answer, and a request whose Host header is
a name other than localhost or the bound one is refused (DNS rebinding). A connection that
sends nothing, or something that is not HTTP (an HTTP/0.9 line without its end, a TLS hello),
is closed after `IDLE_TIMEOUT_S`; at most `MAX_CONNECTIONS` are served at once and any more
are closed at once, so no client can hold the server's threads.

The one write, an answer on the review page, also needs the server's CSRF token (made
when it starts, embedded in the review page) in the ``X-Sane-Token`` header, a JSON body,
and, where the browser sends them, an Origin that is this server and a `Sec-Fetch-Site` of
same-origin. A page from another origin cannot read the token, and a cross-origin request
with that header needs a CORS preflight this server never grants; a form post has neither
header nor JSON. Nor can such a page frame the review page and borrow the reviewer's click
(clickjacking): every response forbids framing (`FRAME_HEADERS`).
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import secrets
import socket
import sqlite3
import threading
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

from sane import api
from sane.errors import InputError, SaneError
from sane.reporting import LiveOptions
from sane.review import (
    ANSWER_PATH,
    TOKEN_HEADER,
    answer_question,
    page_answers,
    render_review_page,
    review_questions,
    review_status,
)
from sane.suites.store import SuiteStore

STATE_PATH = "/state"
REVIEW_PATH = "/review"
MAX_ANSWER_BYTES = 4096  # an answer is a question id and a word
IDLE_TIMEOUT_S = 10.0  # a connection's socket timeout: a silent or malformed client is closed
MAX_CONNECTIONS = 32  # connections served at once (a browser opens six at most)
# Sent with every response, errors included: no page may be shown in another site's frame
# (the old header for browsers before CSP level 2, and the CSP directive that replaces it).
FRAME_HEADERS = (
    ("X-Frame-Options", "DENY"),
    ("Content-Security-Policy", "frame-ancestors 'none'"),
)


class SuiteWatcher:
    """Counts commits to the suite file made by other connections (writers)."""

    def __init__(self, path: Path) -> None:
        self._conn = sqlite3.connect(path, check_same_thread=False, timeout=30.0)
        self._lock = threading.Lock()
        self._seen: int | None = None
        self._generation = 0

    def generation(self) -> int:
        with self._lock:
            version = self._conn.execute("PRAGMA data_version").fetchone()[0]
            if self._seen is not None and version != self._seen:
                self._generation += 1
            self._seen = version
            return self._generation

    def close(self) -> None:
        self._conn.close()


def _waiting_page(message: str, interval_ms: int) -> str:
    """Shown while the suite cannot be rendered yet (e.g. its generation just started)."""
    env = Environment(
        loader=PackageLoader("sane.reporting", "templates"),
        autoescape=select_autoescape(default=True),
    )
    return env.get_template("waiting.html.j2").render(
        message=message, refresh_s=max(1, round(interval_ms / 1000))
    )


def _json_report(suite: Path, human: Mapping[str, float] | None) -> str:
    return json.dumps(api.report(suite, human=human).model_dump(mode="json"))


def host_allowed(header: str | None, bound: str) -> bool:
    """Whether a request's Host header may be answered. A web page can point a host name it
    owns at 127.0.0.1 (DNS rebinding) and read the report from the user's browser; it cannot
    do that with an IP literal, "localhost", or the name the server was started on."""
    if not header:
        return False
    header = header.strip()
    if header.startswith("[") and "]" in header:  # [IPv6]:port
        name = header[1 : header.index("]")]
    else:
        name = header.rsplit(":", 1)[0] if header.count(":") == 1 else header
    name = name.rstrip(".").lower()
    if name in ("localhost", bound.lower()):
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def loopback_host(host: str) -> bool:
    """Whether `host` (a --host value) is a loopback address or `localhost`."""
    name = host.strip().strip("[]").rstrip(".").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


class LoopbackServer(ThreadingHTTPServer):
    """A threaded HTTP server that answers loopback peers only, at most `MAX_CONNECTIONS` at a
    time (one more is closed unanswered, never queued on a new thread)."""

    daemon_threads = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        super().__init__(*args, **kwargs)

    def verify_request(self, request: Any, client_address: Any) -> bool:
        try:
            return ipaddress.ip_address(str(client_address[0]).split("%", 1)[0]).is_loopback
        except ValueError:
            return False

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()


def make_server(
    suite: str | Path,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    human: Mapping[str, float] | None = None,
    interval_ms: int = 2000,
) -> ThreadingHTTPServer:
    """A threaded HTTP server for one suite; ``server.server_address`` holds the real port."""
    if not loopback_host(host):
        raise InputError(
            None,
            "--host",
            f"{host!r} is not a loopback address: sane view serves the report on this machine "
            "only (127.0.0.1, ::1 or localhost)",
        )
    path = Path(suite)
    SuiteStore(path, readonly=True).close()  # refuse a missing or non-suite file before serving
    watcher = SuiteWatcher(path)
    token = secrets.token_urlsafe(32)  # the CSRF token of this server's one write

    class Handler(BaseHTTPRequestHandler):
        timeout = IDLE_TIMEOUT_S

        def log_message(self, format: str, *args: object) -> None:
            return  # keep the terminal quiet; errors still reach the page

        def end_headers(self) -> None:
            """Every response forbids framing, so it is added here rather than per route."""
            for name, value in FRAME_HEADERS:
                self.send_header(name, value)
            super().end_headers()

        def _send(self, status: int, body: str, content_type: str) -> None:
            payload = body.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", f"{content_type}; charset=utf-8")
            self.send_header("Content-Length", str(len(payload)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(payload)

        def _json(self, status: int, payload: dict[str, Any]) -> None:
            self._send(status, json.dumps(payload), "application/json")

        def _review_page(self) -> str:
            store = SuiteStore(path, readonly=True)
            try:
                snapshot, answers = store.snapshot(), page_answers(store)
            finally:
                store.close()
            questions = review_questions(snapshot, answers)
            return render_review_page(
                snapshot, questions, token, review_status(snapshot, questions)
            )

        def _write_refusal(self) -> str | None:
            """Why this POST may not write, or None: the CSRF token, a JSON body and, where
            the browser sent them, this server's own Origin and a same-origin Sec-Fetch-Site
            (another port of 127.0.0.1 is the same site but another origin)."""
            if not hmac.compare_digest(self.headers.get(TOKEN_HEADER, ""), token):
                return "missing or wrong CSRF token"
            origin = self.headers.get("Origin")
            if origin is not None and origin != f"http://{self.headers.get('Host')}":
                return f"a request from another origin ({origin}) cannot write"
            site = self.headers.get("Sec-Fetch-Site")
            if site is not None and site != "same-origin":
                return f"a request from another origin (Sec-Fetch-Site: {site}) cannot write"
            if self.headers.get_content_type() != "application/json":
                return "the body must be JSON"
            return None

        def do_POST(self) -> None:
            if not host_allowed(self.headers.get("Host"), host):
                self._send(403, "sane view answers only loopback or IP host names", "text/plain")
                return
            if self.path.split("?", 1)[0] != ANSWER_PATH:
                self._json(404, {"error": "not found"})
                return
            refusal = self._write_refusal()
            if refusal is not None:
                self._json(403, {"error": refusal})
                return
            try:
                length = int(self.headers.get("Content-Length") or 0)
                if not 0 < length <= MAX_ANSWER_BYTES:
                    raise ValueError(f"a body of {length} bytes")
                body = json.loads(self.rfile.read(length))
                question, answer = str(body["question"]), str(body["answer"])
            except (ValueError, KeyError, TypeError) as exc:
                self._json(400, {"error": f"expected {{question, answer}}: {exc}"})
                return
            try:
                store = SuiteStore(path, writer=True)
            except SaneError as exc:  # e.g. a run holds the suite's lock
                self._json(409, {"error": str(exc)})
                return
            try:
                answer_question(store, question, answer)
                snapshot, answers = store.snapshot(), page_answers(store)
            except SaneError as exc:
                self._json(400, {"error": str(exc)})
                return
            finally:
                store.close()
            self._json(200, review_status(snapshot, review_questions(snapshot, answers)))

        def do_GET(self) -> None:
            if not host_allowed(self.headers.get("Host"), host):
                self._send(403, "sane view answers only loopback or IP host names", "text/plain")
                return
            route = self.path.split("?", 1)[0].split("#", 1)[0]
            generation = watcher.generation()  # before reading, so no change can be missed
            try:
                if route == STATE_PATH:
                    self._send(200, json.dumps({"generation": generation}), "application/json")
                elif route == "/report.json":
                    self._send(200, _json_report(path, human), "application/json")
                elif route == REVIEW_PATH:
                    self._send(200, self._review_page(), "text/html")
                elif route in ("/", "/index.html"):
                    live = LiveOptions(STATE_PATH, generation, interval_ms)
                    self._send(200, api.report_html(path, human=human, live=live), "text/html")
                else:
                    self._send(404, "not found", "text/plain")
            except SaneError as exc:
                page = _waiting_page(str(exc), interval_ms)
                self._send(503, page, "text/html")

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    server_class = type("Server", (LoopbackServer,), {"address_family": family})
    server = server_class((host, port), Handler)
    original_close = server.server_close

    def server_close() -> None:
        original_close()
        watcher.close()

    server.server_close = server_close  # type: ignore[method-assign]
    return server
