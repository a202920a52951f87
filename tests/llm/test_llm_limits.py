"""Budgets, the concurrency limit, one flight per key and the retry policy."""

from __future__ import annotations

import asyncio

import httpx
import litellm
import pytest
from litellm import ModelResponse

from sane.errors import BudgetExceeded, LLMError
from sane.llm import LLMClient
from sane.llm._retry import backoff_delay, is_transient

MESSAGES = [{"role": "user", "content": "hello"}]


def _response(text: str) -> ModelResponse:
    response = ModelResponse()
    response.choices[0].message.content = text
    return response


async def test_call_budget_stops_before_the_call(write_script, settings_for, records) -> None:
    script = write_script({"default": "ok"})
    settings = settings_for(script_path=script, max_calls=2)
    client = LLMClient(settings, on_call=records.append)
    await client.text("scripted", MESSAGES, task="t", sample_index=0)
    await client.text("scripted", MESSAGES, task="t", sample_index=1)
    await client.text("scripted", MESSAGES, task="t", sample_index=0)  # cached: free
    with pytest.raises(BudgetExceeded):
        await client.text("scripted", MESSAGES, task="t", sample_index=2)
    assert client.calls_made == 2
    assert [r.cached for r in records] == [False, False, True]

    # A rerun with no call budget left replays what was done.
    zero = LLMClient(settings.model_copy(update={"max_calls": 0}))
    assert await zero.text("scripted", MESSAGES, task="t", sample_index=1) == "ok"
    with pytest.raises(BudgetExceeded):
        await zero.text("scripted", MESSAGES, task="t", sample_index=5)
    client.close()
    zero.close()


async def test_concurrency_limit_is_respected(settings_for, monkeypatch) -> None:
    in_flight = 0
    peak = 0

    async def slow(**kwargs: object) -> ModelResponse:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.02)
        in_flight -= 1
        return _response("done")

    monkeypatch.setattr(litellm, "acompletion", slow)
    client = LLMClient(settings_for(concurrency=3))
    results = await asyncio.gather(
        *(client.text("openai/x", MESSAGES, task="t", sample_index=i) for i in range(12))
    )
    assert results == ["done"] * 12
    assert peak == 3
    assert client.calls_made == 12
    client.close()


async def test_identical_concurrent_calls_make_one_provider_call(settings_for, monkeypatch) -> None:
    calls = 0

    async def fake(**kwargs: object) -> ModelResponse:
        nonlocal calls
        calls += 1
        await asyncio.sleep(0.01)
        return _response("same")

    monkeypatch.setattr(litellm, "acompletion", fake)
    client = LLMClient(settings_for())
    results = await asyncio.gather(*(client.text("openai/x", MESSAGES, task="t") for _ in range(5)))
    assert results == ["same"] * 5 and calls == 1
    client.close()


async def test_transient_errors_are_retried_with_records(
    settings_for, records, monkeypatch
) -> None:
    failures = [
        litellm.RateLimitError("limited", llm_provider="openai", model="x"),
        litellm.Timeout("slow", model="x", llm_provider="openai"),
    ]
    sent: list[dict] = []

    async def flaky(**kwargs: object) -> ModelResponse:
        sent.append(dict(kwargs))
        if failures:
            raise failures.pop(0)
        return _response("finally")

    monkeypatch.setattr(litellm, "acompletion", flaky)
    client = LLMClient(settings_for(provider_retries=3), on_call=records.append)
    assert await client.text("openai/x", MESSAGES, task="t") == "finally"
    assert [bool(r.error) for r in records] == [True, True, False]
    assert client.calls_made == 1  # one logical call, three attempts
    assert all(k["num_retries"] == 0 and k["max_retries"] == 0 for k in sent)
    client.close()


async def test_missing_text_is_an_error_not_an_answer(settings_for, monkeypatch) -> None:
    async def empty(**kwargs: object) -> ModelResponse:
        response = _response("")
        response.choices[0].message.content = None
        return response

    monkeypatch.setattr(litellm, "acompletion", empty)
    client = LLMClient(settings_for())
    with pytest.raises(LLMError, match="no text"):
        await client.text("openai/x", MESSAGES, task="t")
    client.close()


def _status_error(status: int, headers: dict[str, str] | None = None) -> litellm.APIError:
    request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    response = httpx.Response(status, headers=headers or {}, request=request)
    return litellm.APIError(status, "x", "openai", "m", response=response, request=request)


@pytest.mark.parametrize(
    ("status", "transient"),
    [(429, True), (500, True), (502, True), (503, True), (504, True)]
    + [(400, False), (401, False), (404, False)],
)
def test_status_classification(status: int, transient: bool) -> None:
    assert is_transient(_status_error(status)) is transient


def test_timeouts_and_connection_errors_are_transient() -> None:
    assert is_transient(TimeoutError())
    assert is_transient(litellm.APIConnectionError("down", llm_provider="openai", model="m"))
    assert not is_transient(ValueError("bug"))


def test_backoff_is_exponential_and_jittered_unless_retry_after() -> None:
    plain = _status_error(503)
    for n, ceiling in enumerate([0.5, 1.0, 2.0]):
        delays = {backoff_delay(plain, n, 0.5) for _ in range(20)}
        assert all(ceiling / 2 <= d <= ceiling for d in delays)
        assert len(delays) > 1  # jitter: concurrent failures do not retry in lockstep
    assert backoff_delay(_status_error(429, {"Retry-After": "7"}), 0, 0.5) == 7.0
