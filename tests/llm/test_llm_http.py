"""The real litellm path against an OpenAI-compatible server on loopback."""

from __future__ import annotations

import time
from typing import Literal

import pytest
from llm_server import FakeOpenAI, Reply
from pydantic import BaseModel

from sane.errors import BudgetExceeded, LLMError
from sane.llm import LLMClient

MODEL = "openai/test-model"
KEY = "sk-test-secret-key-123"
MESSAGES = [{"role": "user", "content": "Say something."}]


class Verdict(BaseModel):
    decision: Literal["yes", "no"]
    rationale: str


async def test_retry_after_429_then_500_then_success(
    openai_server: FakeOpenAI, settings_for, records, tmp_path
) -> None:
    openai_server.replies = [
        Reply(status=429, content="slow down", headers={"Retry-After": "1"}),
        Reply(status=500, content="server broke"),
        Reply(content="hello there"),
    ]
    settings = settings_for(api_base=openai_server.base_url, api_key=KEY, backoff_s=0.01)
    client = LLMClient(settings, on_call=records.append)
    started = time.monotonic()
    text = await client.text(MODEL, MESSAGES, task="greet", temperature=0.0, max_tokens=20)
    elapsed = time.monotonic() - started

    assert text == "hello there"
    assert len(openai_server.requests) == 3  # no hidden retries inside litellm/openai
    assert elapsed >= 0.95  # Retry-After: 1 honoured although backoff_s is 0.01
    assert [r.error is not None for r in records] == [True, True, False]
    assert "RateLimit" in records[0].error and "InternalServer" in records[1].error
    ok = records[-1]
    assert (ok.prompt_tokens, ok.completion_tokens, ok.cached) == (10, 5, False)
    body = openai_server.requests[-1]
    assert body["model"] == "test-model"
    assert body["temperature"] == 0.0 and body["max_tokens"] == 20
    assert openai_server.headers[-1]["authorization"] == f"Bearer {KEY}"
    assert client.calls_made == 1

    # A second client on the same cache replays without touching the server.
    replay_records: list = []
    again = LLMClient(settings, on_call=replay_records.append)
    assert await again.text(MODEL, MESSAGES, task="greet", temperature=0.0, max_tokens=20) == text
    assert len(openai_server.requests) == 3
    assert [r.cached for r in replay_records] == [True]
    client.close()
    again.close()

    # The API key is never stored.
    assert KEY.encode() not in settings.cache_path.read_bytes()
    assert all(KEY not in r.model_dump_json() for r in records)
    assert KEY not in repr(settings) and KEY not in settings.model_dump_json()


async def test_structured_sends_response_format(openai_server: FakeOpenAI, settings_for) -> None:
    openai_server.default = Reply(content='```json\n{"decision": "no", "rationale": "r"}\n```')
    client = LLMClient(settings_for(api_base=openai_server.base_url, api_key=KEY))
    result = await client.structured(MODEL, MESSAGES, Verdict, task="judge")
    assert result == Verdict(decision="no", rationale="r")
    body = openai_server.requests[-1]
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == Verdict.model_json_schema()
    # the instruction carries the schema, in the system message (a shared prefix)
    assert (
        body["messages"][0]["role"] == "system" and '"decision"' in body["messages"][0]["content"]
    )
    client.close()


async def test_permanent_error_is_not_retried(
    openai_server: FakeOpenAI, settings_for, records
) -> None:
    openai_server.default = Reply(status=401, content="bad key")
    client = LLMClient(settings_for(api_base=openai_server.base_url, api_key=KEY), records.append)
    with pytest.raises(LLMError) as info:
        await client.text(MODEL, MESSAGES, task="greet")
    assert len(openai_server.requests) == 1
    assert "after 1 attempt" in info.value.cause
    assert KEY not in str(info.value)
    assert len(records) == 1 and records[0].error
    client.close()


async def test_transient_errors_exhaust_retries(openai_server: FakeOpenAI, settings_for) -> None:
    openai_server.default = Reply(status=503, content="unavailable")
    client = LLMClient(
        settings_for(api_base=openai_server.base_url, api_key=KEY, provider_retries=2)
    )
    with pytest.raises(LLMError, match="after 3 attempt"):
        await client.text(MODEL, MESSAGES, task="greet")
    assert len(openai_server.requests) == 3
    client.close()


async def test_cost_budget_stops_priced_calls(openai_server: FakeOpenAI, settings_for) -> None:
    openai_server.default = Reply(prompt_tokens=1000, completion_tokens=1000)
    client = LLMClient(settings_for(api_base=openai_server.base_url, api_key=KEY, max_cost=1e-9))
    await client.text("openai/gpt-4o-mini", MESSAGES, task="a")
    assert client.cost > 0  # litellm knows this model's price
    with pytest.raises(BudgetExceeded):
        await client.text("openai/gpt-4o-mini", MESSAGES, task="a", sample_index=1)
    assert len(openai_server.requests) == 1
    client.close()
