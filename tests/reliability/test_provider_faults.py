"""Provider faults on the wire, through the real litellm path, to a loopback server.

Every fault is first survived (retried with backoff, then answered) and then
made permanent (retried up to the limit, then an LLMError naming the cause,
with one error call record per attempt and nothing cached).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Literal

import pytest
from fault_server import Action, FaultServer, Malformed, Ok, Reset, Stall, Status
from pydantic import BaseModel

from sane.errors import LLMError
from sane.llm import LLMClient, LLMSettings
from sane.llm._cache import ResponseCache
from sane.records import CallRecord

MODEL = "openai/fault-test"
MESSAGES = [{"role": "user", "content": "Is this fine?"}]
VALID = '{"rationale": "looks right", "decision": "yes"}'
TIMEOUT_S = 0.4
BACKOFF_S = 0.05

# fault name -> (the fault, a piece of the recorded cause)
FAULTS: dict[str, tuple[Action, str]] = {
    "429 with Retry-After": (Status(429, "slow down", {"Retry-After": "0.3"}), "RateLimitError"),
    "429 without Retry-After": (Status(429, "slow down"), "RateLimitError"),
    "500": (Status(500, "server broke"), "InternalServerError"),
    "503": (Status(503, "unavailable"), "ServiceUnavailableError"),
    "connection reset": (Reset(), "Connection error"),
    "timeout": (Stall(TIMEOUT_S * 3), "Timeout"),
    "malformed JSON body": (Malformed(), "Expecting value"),
    "empty content": (Ok(content=None), "no text"),
}


class Vote(BaseModel):
    rationale: str
    decision: Literal["yes", "no"]


def client(server: FaultServer, tmp_path: Path, calls: list[CallRecord], **extra) -> LLMClient:
    values = {
        "cache_path": tmp_path / "cache.db",
        "api_base": server.base_url,
        "api_key": "sk-fault-test-0000",
        "backoff_s": BACKOFF_S,
        "timeout_s": TIMEOUT_S,
        "provider_retries": 3,
        "repair_retries": 1,
    } | extra
    return LLMClient(LLMSettings(**values), on_call=calls.append)


@pytest.mark.parametrize("name", list(FAULTS))
async def test_transient_fault_is_retried_then_answered(
    fault_server: FaultServer, tmp_path: Path, name: str
) -> None:
    fault, cause = FAULTS[name]
    fault_server.queue = [fault, fault]
    fault_server.responder = lambda body: Ok(VALID)
    calls: list[CallRecord] = []
    llm = client(fault_server, tmp_path, calls)
    started = time.monotonic()
    vote = await llm.structured(MODEL, MESSAGES, Vote, task="vote")
    elapsed = time.monotonic() - started
    llm.close()

    assert vote == Vote(rationale="looks right", decision="yes")
    assert len(fault_server.requests) == 3
    assert [c.error is not None for c in calls] == [True, True, False]
    assert all(cause in (c.error or "") for c in calls[:2]), [c.error for c in calls]
    # Backoff: base * (1 + 2) jittered down to half without Retry-After; the server's
    # 0.3 s twice with it.
    assert elapsed >= (0.6 if "Retry-After" in name and "without" not in name else 0.075)
    assert ResponseCache(tmp_path / "cache.db").count() == 1


@pytest.mark.parametrize("name", list(FAULTS))
async def test_permanent_fault_becomes_an_error_with_its_cause(
    fault_server: FaultServer, tmp_path: Path, name: str
) -> None:
    fault, cause = FAULTS[name]
    fault_server.responder = lambda body: fault
    calls: list[CallRecord] = []
    llm = client(fault_server, tmp_path, calls, provider_retries=2, backoff_s=0.0)
    if isinstance(fault, Status) and fault.headers:
        fault_server.responder = lambda body: Status(429, "slow down", {"Retry-After": "0"})
    with pytest.raises(LLMError) as info:
        await llm.structured(MODEL, MESSAGES, Vote, task="vote")
    llm.close()

    assert "after 3 attempt(s)" in info.value.cause and cause in info.value.cause
    assert len(fault_server.requests) == 3
    assert len(calls) == 3 and all(cause in (c.error or "") for c in calls)
    assert ResponseCache(tmp_path / "cache.db").count() == 0  # a rerun will try again


TRUNCATED = Ok('{"rationale": "looks ri', finish_reason="length")
SCHEMA_INVALID = Ok('{"rationale": "hmm", "decision": "maybe"}')


@pytest.mark.parametrize("bad", [TRUNCATED, SCHEMA_INVALID], ids=["truncated", "schema-invalid"])
async def test_bad_structured_output_is_repaired_once(
    fault_server: FaultServer, tmp_path: Path, bad: Ok
) -> None:
    fault_server.queue = [bad]
    fault_server.responder = lambda body: Ok(VALID)
    llm = client(fault_server, tmp_path, [])
    assert (await llm.structured(MODEL, MESSAGES, Vote, task="vote")).decision == "yes"
    llm.close()
    repair = fault_server.requests[-1]["messages"]
    assert repair[-2] == {"role": "assistant", "content": bad.content}
    assert "Problems:" in repair[-1]["content"]  # the problem is fed back to the model


@pytest.mark.parametrize("bad", [TRUNCATED, SCHEMA_INVALID], ids=["truncated", "schema-invalid"])
async def test_bad_structured_output_is_an_error_after_the_repair_limit(
    fault_server: FaultServer, tmp_path: Path, bad: Ok
) -> None:
    fault_server.responder = lambda body: bad
    llm = client(fault_server, tmp_path, [], repair_retries=2)
    # the server repeats itself, so the one repair it ignored is the last
    with pytest.raises(LLMError, match="schema-invalid output after 2 attempts.*same reply"):
        await llm.structured(MODEL, MESSAGES, Vote, task="vote")
    llm.close()
    assert len(fault_server.requests) == 2
