"""`sane view`: the loopback server follows a suite while it is executed.

Real HTTP requests on 127.0.0.1; the suite is the tiny scripted one, generated first and
executed while the server is up, as a user watching a run would see it.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tiny_suite import build_tiny_suite, execute_tiny
from typer.testing import CliRunner

from sane import view as serve_module
from sane.cli import _view, app
from sane.view import make_server


def get(url: str) -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as reply:
            return reply.status, reply.headers["Content-Type"], reply.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read().decode("utf-8")


@pytest.fixture
def generated(tmp_path: Path) -> Path:
    build_tiny_suite(tmp_path, execute=False)
    return tmp_path


@pytest.fixture
def served(generated: Path) -> Iterator[str]:
    server = make_server(generated / "suite.db", port=0, interval_ms=200)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    yield f"http://{host}:{port}"
    server.shutdown()
    server.server_close()
    thread.join(timeout=10)


def test_server_updates_as_results_land(generated: Path, served: str) -> None:
    assert served.startswith("http://127.0.0.1:")
    status, kind, page = get(served + "/")
    assert status == 200 and kind.startswith("text/html")
    assert "sane report: tiny-faithfulness" in page and 'id="live-status"' in page
    assert "connect-src 'self'" in page.replace("&#39;", "'")  # live polling is allowed
    before = json.loads(get(served + "/state")[2])["generation"]
    assert json.loads(get(served + "/state")[2])["generation"] == before  # nothing changed
    assert json.loads(get(served + "/report.json")[2])["targets"] == {}

    execute_tiny(generated)  # another connection writes the results

    after = json.loads(get(served + "/state")[2])["generation"]
    assert after != before
    report = json.loads(get(served + "/report.json")[2])
    assert report["targets"]["lazy"]["faults"] > 0
    page = get(served + "/")[2]
    assert f'"generation":{after}' in page and '"t":"lazy"' in page
    assert get(served + "/nope")[0] == 404


async def test_open_page_reloads_when_results_land(generated: Path, served: str, page) -> None:
    await page.open(served + "/")
    await page.wait_for("document.documentElement.getAttribute('data-ready') === '1'")
    assert await page.js("document.querySelectorAll('.fault').length") == 0
    await page.js("window.__beforeReload = true")

    await asyncio.to_thread(execute_tiny, generated)  # execute runs its own event loop

    await page.wait_for(
        "!window.__beforeReload && document.documentElement.getAttribute('data-ready') === '1'"
        " && document.querySelectorAll('.fault').length > 0",
        timeout=30,
    )
    await page.wait_for(  # the reloaded page keeps polling
        "document.getElementById('live-status').textContent.startsWith('live, checked')"
    )
    assert page.problems() == []


def test_view_command_serves_and_opens_the_browser(
    generated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    servers, opened = [], []

    def spy(*args, **kwargs):
        server = make_server(*args, **kwargs)
        servers.append(server)
        return server

    monkeypatch.setattr(serve_module, "make_server", spy)  # `sane view` imports it when run
    monkeypatch.setattr(_view.webbrowser, "open", opened.append)
    results = []
    command = ["view", str(generated / "suite.db"), "--port", "0"]
    thread = threading.Thread(target=lambda: results.append(CliRunner().invoke(app, command)))
    thread.start()
    deadline = time.monotonic() + 30
    while not opened and time.monotonic() < deadline:
        time.sleep(0.02)
    assert opened and re.fullmatch(r"http://127\.0\.0\.1:\d+/", opened[0])
    status, _, page = get(opened[0])
    assert status == 200 and "sane report: tiny-faithfulness" in page
    servers[0].shutdown()  # what Ctrl-C does: serve_forever returns and the port closes
    thread.join(timeout=10)
    assert results[0].exit_code == 0
    assert f"at {opened[0]}" in results[0].stderr


def test_view_refuses_a_file_that_is_not_a_suite(tmp_path: Path) -> None:
    (tmp_path / "x.db").write_text("not sqlite")
    result = CliRunner().invoke(app, ["view", str(tmp_path / "x.db"), "--no-open"])
    assert result.exit_code == 2 and "not a sane suite" in result.stderr


@pytest.mark.parametrize(
    ("host", "status"),
    [
        ("attacker.example", 403),  # DNS rebinding: a page's own name pointed at 127.0.0.1
        ("attacker.example:8000", 403),
        ("localhost.attacker.example", 403),
        (None, 403),
        ("localhost", 200),
        ("127.0.0.1:1234", 200),
        ("[::1]:1234", 200),
    ],
)
def test_view_answers_only_loopback_or_ip_host_names(served: str, host, status: int) -> None:
    request = urllib.request.Request(f"{served}/report.json")
    if host is None:
        request.add_unredirected_header("Host", "")
    else:
        request.add_unredirected_header("Host", host)
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            code = reply.status
    except urllib.error.HTTPError as error:
        code = error.code
    assert code == status


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.10", "example.com"])
def test_view_refuses_a_host_that_is_not_loopback(generated: Path, host: str) -> None:
    command = ["view", str(generated / "suite.db"), "--host", host, "--no-open"]
    result = CliRunner().invoke(app, command)
    assert result.exit_code == 2, result.output
    assert "--host" in result.stderr and "not a loopback address" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_view_closes_peers_that_are_not_on_loopback(generated: Path) -> None:
    server = make_server(generated / "suite.db", port=0)
    try:
        # the check socketserver makes of every accepted connection, before any thread
        assert server.verify_request(None, ("127.0.0.1", 40000))
        assert server.verify_request(None, ("127.8.9.10", 40000))
        assert not server.verify_request(None, ("192.0.2.7", 40000))
        assert not server.verify_request(None, ("10.0.0.2", 40000))
    finally:
        server.server_close()


def _closed_within(sock, seconds: float) -> float | None:
    """Seconds until the server closed `sock` (read end of stream or reset), else None."""
    sock.settimeout(seconds)
    started = time.monotonic()
    try:
        while sock.recv(4096):
            pass  # an error page first is fine; what matters is that the server hangs up
    except TimeoutError:
        return None
    except ConnectionResetError:
        pass
    return time.monotonic() - started


TLS_CLIENT_HELLO = bytes.fromhex("16030100a5010000a10303") + bytes(32) + b"\x00\x00\x02\x13\x01"


@pytest.mark.parametrize(
    "sent", [b"", b"GET /", TLS_CLIENT_HELLO], ids=["silent", "http/0.9 unfinished", "tls hello"]
)
def test_view_times_out_idle_and_malformed_connections(
    generated: Path, monkeypatch: pytest.MonkeyPatch, sent: bytes
) -> None:
    import socket

    monkeypatch.setattr(serve_module, "IDLE_TIMEOUT_S", 0.5)
    server = make_server(generated / "suite.db", port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with socket.create_connection(server.server_address[:2], timeout=5) as sock:
            sock.sendall(sent)
            waited = _closed_within(sock, 5.0)
        assert waited is not None and waited < 4.0, "the connection was held open"
    finally:
        server.shutdown()
        server.server_close()


def test_view_serves_a_bounded_number_of_connections(
    generated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    monkeypatch.setattr(serve_module, "IDLE_TIMEOUT_S", 1.5)
    monkeypatch.setattr(serve_module, "MAX_CONNECTIONS", 4)
    server = make_server(generated / "suite.db", port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    address = server.server_address[:2]
    held = [socket.create_connection(address, timeout=5) for _ in range(4)]
    try:
        time.sleep(0.2)  # the four are accepted and each holds a thread
        with socket.create_connection(address, timeout=5) as extra:
            waited = _closed_within(extra, 1.0)
        assert waited is not None and waited < 1.0, "a fifth connection was queued on a thread"
        for sock in held:  # the idle ones are closed at the timeout, freeing their slots
            assert _closed_within(sock, 5.0) is not None
        status, _, _ = get(f"http://{address[0]}:{address[1]}/state")
        assert status == 200
    finally:
        for sock in held:
            sock.close()
        server.shutdown()
        server.server_close()


def _headers(url: str, method: str = "GET", body: bytes | None = None) -> tuple[int, Any]:
    request = urllib.request.Request(url, data=body, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status, reply.headers
    except urllib.error.HTTPError as error:
        return error.code, error.headers


@pytest.mark.parametrize(
    ("method", "route"),
    [("GET", "/"), ("GET", "/review"), ("GET", "/report.json"), ("GET", "/state"),
     ("GET", "/missing"), ("POST", "/review/answer"), ("PUT", "/review")],
)  # fmt: skip
def test_every_response_forbids_framing(served: str, method: str, route: str) -> None:
    """A page of another site that frames the review page gets a click on its buttons
    (clickjacking): every answer, errors included, tells the browser never to frame it."""
    status, headers = _headers(served + route, method, b"{}" if method != "GET" else None)
    assert status, status
    assert headers["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in headers.get_all("Content-Security-Policy", [])


def test_a_cross_site_post_is_refused_even_with_the_token(served: str) -> None:
    """A browser says where a request came from (`Sec-Fetch-Site`); only this origin writes."""
    page = get(served + "/review")[2]
    token = re.search(r'"token":\s*"([^"]+)"', page)
    assert token is not None
    request = urllib.request.Request(
        served + "/review/answer",
        data=json.dumps({"question": "alignment|rec-1-2", "answer": "higher"}).encode(),
        method="POST",
        headers={"Content-Type": "application/json", "X-Sane-Token": token.group(1),
                 "Sec-Fetch-Site": "same-site"},
    )  # fmt: skip
    try:
        urllib.request.urlopen(request, timeout=30)
        status = 200
    except urllib.error.HTTPError as error:
        status, reason = error.code, error.read().decode()
    assert status == 403 and "another origin" in reason
