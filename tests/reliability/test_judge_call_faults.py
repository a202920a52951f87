"""A judge target's calls on the wire (an llm_judge on an OpenAI-compatible loopback server):
429, a malformed body and a slow reply are retried, and when they persist the scoring raises,
so the case is an error record; no fault ever becomes a score. An ambiguous reply is an error.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fault_server import FaultServer, Malformed, Ok, Stall, Status

from sane.errors import LLMError, ScorerError
from sane.llm import LLMClient, LLMSettings
from sane.records import OutputContract, ScorerSpec
from sane.scorers import BuildContext, build_target
from sane.scorers.execute import score_variants
from sane.target_kind import target_config

TIMEOUT_S = 0.4
SPEC = ScorerSpec(
    name="judge-faults",
    criterion="How faithful the summary is.",
    fields={"source": "the document", "summary": "the text being scored"},
    scored_field="summary",
    output=OutputContract(type="ordinal", min=1, max=5),
)
RECORDS = {"original": {"source": "A cat sat.", "summary": "A cat sat."}}
FAULTS = {
    "429": Status(429, "slow down", {"Retry-After": "0"}),
    "malformed body": Malformed(),
    "slow reply": Stall(TIMEOUT_S * 3),
}


def _judge(server: FaultServer, tmp_path: Path, retries: int):
    settings = LLMSettings(cache_path=tmp_path / "cache.db", api_base=server.base_url,
                           api_key="sk-judge-fault-0000", backoff_s=0.0, timeout_s=TIMEOUT_S,
                           provider_retries=retries)  # fmt: skip
    llm = LLMClient(settings)
    config = target_config(name="judge", kind="llm_judge", model="openai/judge-model")
    return llm, build_target(config, BuildContext(spec=SPEC, llm=llm))


@pytest.mark.parametrize("fault", list(FAULTS))
async def test_a_transient_fault_on_a_judge_call_is_retried(
    fault_server: FaultServer, tmp_path: Path, fault: str
) -> None:
    fault_server.queue = [FAULTS[fault]]
    fault_server.responder = lambda body: Ok("Score: 4")
    llm, judge = _judge(fault_server, tmp_path, retries=2)
    scores = await score_variants(judge, RECORDS, repeats=1, timeout_s=30)
    await llm.aclose()
    assert scores == {"original": [4.0]}
    assert len(fault_server.requests) == 2


@pytest.mark.parametrize("fault", list(FAULTS))
async def test_a_persistent_fault_on_a_judge_call_is_an_error_never_a_score(
    fault_server: FaultServer, tmp_path: Path, fault: str
) -> None:
    fault_server.responder = lambda body: FAULTS[fault]
    llm, judge = _judge(fault_server, tmp_path, retries=1)
    with pytest.raises((LLMError, ScorerError)):
        await score_variants(judge, RECORDS, repeats=1, timeout_s=30)
    await llm.aclose()
    assert len(fault_server.requests) == 2  # one retry, then recorded as an error


async def test_an_ambiguous_judge_reply_is_an_error(fault_server: FaultServer, tmp_path: Path):
    fault_server.responder = lambda body: Ok('{"score": 3} Score: 5')
    llm, judge = _judge(fault_server, tmp_path, retries=0)
    with pytest.raises(ScorerError, match="conflicting scores"):
        await score_variants(judge, RECORDS, repeats=1, timeout_s=30)
    await llm.aclose()
