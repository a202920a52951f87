"""Headless Chromium driven over the Chrome DevTools Protocol, for the HTML report tests.

One browser process per test session (Debian's ``chromium``; `.ci/run` installs it); each
test opens its own tab over a websocket and collects console errors, uncaught exceptions
and log errors while the page loads.
"""

from __future__ import annotations

import asyncio
import base64
import importlib.util
import itertools
import json
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets


def _report_kit() -> Any:
    """The report tests' snapshot factory (tests/reporting/conftest.py), loaded by path."""
    path = Path(__file__).resolve().parent.parent / "conftest.py"
    spec = importlib.util.spec_from_file_location("sane_report_test_kit", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


KIT = _report_kit()

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--window-size=1280,2000",
    "--remote-debugging-port=0",
    "--remote-allow-origins=*",
]


class Page:
    """One tab: send CDP commands, keep the events that tell whether the page misbehaved."""

    def __init__(self, socket: websockets.ClientConnection) -> None:
        self.socket = socket
        self.ids = itertools.count(1)
        self.pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.events: list[dict[str, Any]] = []
        self.loaded = asyncio.Event()
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for raw in self.socket:
            message = json.loads(raw)
            if "id" in message and message["id"] in self.pending:
                self.pending.pop(message["id"]).set_result(message)
                continue
            self.events.append(message)
            if message.get("method") == "Page.loadEventFired":
                self.loaded.set()

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        number = next(self.ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.pending[number] = future
        await self.socket.send(json.dumps({"id": number, "method": method, "params": params}))
        reply = await asyncio.wait_for(future, timeout=60)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply["result"]

    async def open(self, url: str) -> None:
        self.loaded.clear()
        await self.send("Page.navigate", url=url)
        await asyncio.wait_for(self.loaded.wait(), timeout=60)

    async def js(self, expression: str) -> Any:
        result = await self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    async def wait_for(self, expression: str, timeout: float = 30.0) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                value = await self.js(expression)
            except RuntimeError:  # the page is navigating (e.g. reloading): ask again
                value = None
            if value:
                return value
            await asyncio.sleep(0.05)
        raise TimeoutError(expression)

    def problems(self) -> list[str]:
        """Console errors, uncaught exceptions and error log entries (e.g. CSP violations)."""
        found = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in {"error", "assert"}:
                found.append("console: " + json.dumps(params.get("args")))
            elif method == "Runtime.exceptionThrown":
                found.append("exception: " + json.dumps(params.get("exceptionDetails")))
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                found.append("log: " + params["entry"].get("text", ""))
        return found

    async def screenshot(self, path: Path) -> Path:
        metrics = await self.send("Page.getLayoutMetrics")
        size = metrics["cssContentSize"]
        shot = await self.send(
            "Page.captureScreenshot",
            format="png",
            captureBeyondViewport=True,
            clip={
                "x": 0,
                "y": 0,
                "width": size["width"],
                "height": min(size["height"], 6000),
                "scale": 1,
            },
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(shot["data"]))
        return path


class Browser:
    def __init__(self) -> None:
        binary = shutil.which("chromium") or shutil.which("chromium-browser")
        if binary is None:
            pytest.fail(
                "chromium is not installed: `apt-get install -y chromium` (done by .ci/run)"
            )
        self.profile = Path(tempfile.mkdtemp(prefix="sane-chromium-"))
        self.process = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        port_file = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not (port_file.exists() and port_file.read_text().strip()):
            if time.monotonic() > deadline or self.process.poll() is not None:
                self.close()
                pytest.fail("chromium did not start its DevTools endpoint")
            time.sleep(0.05)
        self.port = int(port_file.read_text().split()[0])

    def new_tab_url(self) -> str:
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}/json/new", method="PUT")
        with urllib.request.urlopen(request, timeout=10) as reply:
            return json.loads(reply.read())["webSocketDebuggerUrl"]

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    chromium = Browser()
    yield chromium
    chromium.close()


@pytest.fixture
async def page(browser: Browser) -> AsyncIterator[Page]:
    async with websockets.connect(browser.new_tab_url(), max_size=None) as socket:
        tab = Page(socket)
        for domain in ("Page", "Runtime", "Log"):
            await tab.send(f"{domain}.enable")
        yield tab
        tab.reader.cancel()


@pytest.fixture
def kit() -> Any:
    """``kit.make_snapshot``, ``kit.Plan``, ``kit.run``: suites in a few lines."""
    return KIT


# The `sane check` tests' builder of the tiny scripted suite (a real suite file).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "cli_check"))
