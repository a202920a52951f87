"""A user's own server, for real: llama-cpp-python's stock OpenAI-compatible server on
loopback with the embedded SmolLM2-135M, started with `python -m sane.local.server` (the
stock server cannot load set-up's dispatch build of llama.cpp by itself), called with the
defaults (concurrency 8, no --llm-timeout). It refuses `json_schema` with a 500: the client
falls back once and remembers, retries no refused format, and no call times out."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import pytest
from pydantic import BaseModel

from sane.llm import LLMClient, LLMSettings
from sane.records import CallRecord, OutputContract
from sane.scorers.execute import score_variants

pytestmark = pytest.mark.local_models
pytest.importorskip("sse_starlette", reason="llama-cpp-python's server extra (scripts/setup.sh)")

START_S = 120


class Verdict(BaseModel):
    decision: Literal["yes", "no"]


class Score(BaseModel):
    score: int


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def own_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The stock server through sane's wrapper, on a free loopback port; its base URL."""
    port = _free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    command = [sys.executable, "-m", "sane.local.server", "--model", "smollm2-135m",
               "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048"]  # fmt: skip
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + START_S
        while True:
            try:
                urllib.request.urlopen(f"{base}/models", timeout=2).read()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"the server did not start: {Path(log).read_text()}")
                time.sleep(0.5)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=30)


@dataclass
class OwnJudge:
    """A judge target on the server, replying in JSON, as the executor sees it."""

    client: LLMClient
    name: str = "own-judge"
    contract: OutputContract = field(default_factory=lambda: OutputContract(min=0, max=10))
    fields: tuple[str, ...] = ("reply",)
    deterministic: bool = False

    async def score(self, record: dict[str, str], repeat: int = 0) -> float:
        prompt = f"Rate this customer-support reply from 0 to 10.\n{record['reply']}"
        answer = await self.client.structured(
            "openai/smollm2", [{"role": "user", "content": prompt}], Score, task="judge",
            sample_index=repeat, temperature=0.0, max_tokens=12,
        )  # fmt: skip
        return float(min(10, max(0, answer.score)))


def test_the_stock_server_works_with_the_defaults(own_server: str, tmp_path: Path) -> None:
    records: list[CallRecord] = []
    settings = LLMSettings(cache_path=tmp_path / "cache.db", api_base=own_server, api_key="x")
    client = LLMClient(settings, on_call=records.append)
    question = [{"role": "user", "content": "Is 'Thanks, your refund is on its way.' polite?"}]
    replies = {f"r{i}": {"reply": f"Sorry for the wait; order {i} ships today."} for i in range(6)}

    async def run() -> tuple[list[Verdict], dict[str, list[float]]]:
        votes = await asyncio.gather(
            *(
                client.structured(
                    "openai/smollm2", question, Verdict, task="vote", sample_index=i, max_tokens=12
                )
                for i in range(4)
            )
        )
        scores = await score_variants(OwnJudge(client), replies, repeats=1, timeout_s=60)
        await client.aclose()
        return votes, scores

    votes, scores = asyncio.run(run())
    client.close()
    assert all(v.decision in ("yes", "no") for v in votes)
    assert set(scores) == set(replies)
    errors = [r.error for r in records if r.error]
    assert len(errors) == 1 and "response_format json_schema refused" in errors[0], errors
    assert not any("timeout" in e.lower() for e in errors)
