"""A target on a one-at-a-time resource (an embedded judge) waits for its turn before its
timeout starts, so a slow machine's queue is not a scorer failure."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

from sane.llm import LLMClient, LLMSettings
from sane.records import OutputContract, ScorerSpec
from sane.scorers import build_target, estimate_tolerance
from sane.scorers.base import BuildContext
from sane.target_kind import target_config

CALL_S = 0.1
TIMEOUT_S = 0.35  # three calls' time: the eighteen queued calls below take 1.8 s in all


@dataclass
class OneAtATime:
    """Scores behind one lock, as an embedded model answers: each call takes CALL_S."""

    serial_key: str | None
    name: str = "local-judge"
    contract: OutputContract = field(default_factory=lambda: OutputContract(min=1, max=5))
    fields: tuple[str, ...] = ("source", "summary")
    deterministic: bool = False
    model: asyncio.Lock = field(default_factory=asyncio.Lock)
    calls: int = 0

    async def score(self, record: dict[str, str], repeat: int = 0) -> float:
        async with self.model:
            await asyncio.sleep(CALL_S)
            self.calls += 1
            return 3.0


RECORDS = [{"source": f"source {i}", "summary": f"summary {i}"} for i in range(6)]


async def _tolerance(target: OneAtATime):
    return await estimate_tolerance(
        target, RECORDS, target.contract, repeats=3, timeout_s=TIMEOUT_S
    )


async def test_queued_calls_of_a_serial_target_do_not_time_out():
    target = OneAtATime(serial_key="local")
    estimate = await _tolerance(target)
    assert (estimate.samples, estimate.errors) == (6, 0)
    assert target.calls == 18


async def test_without_turns_the_same_queue_times_out():
    """The control: the same target without a serial key runs all calls at once and the
    ones queued behind the lock for longer than the timeout fail (the test above could)."""
    target = OneAtATime(serial_key=None)
    estimate = await _tolerance(target)
    assert estimate.errors > 0


def test_an_embedded_judge_queues_on_the_local_model_and_an_api_judge_does_not(
    spec: ScorerSpec, tmp_path: Path
):
    llm = LLMClient(LLMSettings(cache_path=tmp_path / "c.db"))  # never called here
    context = BuildContext(spec=spec, base_dir=tmp_path, llm=llm)
    local = target_config(name="q", kind="llm_judge", model="local/qwen2.5-coder-1.5b")
    remote = target_config(name="g", kind="llm_judge", model="openai/gpt-4o-mini")
    assert build_target(local, context).serial_key == "local"
    assert build_target(remote, context).serial_key is None
    assert llm.serial_key("local/smollm2-135m") == "local"
