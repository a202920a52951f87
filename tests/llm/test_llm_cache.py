"""The response cache: keys, exact replay, k samples, errors not cached, shared files."""

from __future__ import annotations

import threading

import litellm
import pytest

from sane.errors import LLMError
from sane.llm import LLMClient
from sane.llm._cache import CachedResponse, ResponseCache, call_key

MESSAGES = [{"role": "user", "content": "Recipe id: r1. Is this aligned?"}]


def test_key_covers_model_messages_params_and_sample() -> None:
    base = call_key("m", MESSAGES, {"temperature": 0.0}, 0)
    assert base == call_key("m", [dict(m) for m in MESSAGES], {"temperature": 0.0}, 0)
    assert base != call_key("m2", MESSAGES, {"temperature": 0.0}, 0)
    assert base != call_key("m", MESSAGES + MESSAGES, {"temperature": 0.0}, 0)
    assert base != call_key("m", MESSAGES, {"temperature": 0.5}, 0)
    assert base != call_key("m", MESSAGES, {"temperature": 0.0}, 1)


async def test_second_client_replays_without_provider_calls(
    write_script, settings_for, records, monkeypatch
) -> None:
    script = write_script({"rules": [{"task": "align", "response": "first answer"}]})
    settings = settings_for(script_path=script)
    first = LLMClient(settings, on_call=records.append)
    assert await first.text("scripted", MESSAGES, task="align") == "first answer"
    assert first.calls_made == 1 and [r.cached for r in records] == [False]
    first.close()

    async def no_provider(**kwargs: object) -> None:
        raise AssertionError("the provider must not be called on a replay")

    monkeypatch.setattr(litellm, "acompletion", no_provider)
    replayed: list = []
    second = LLMClient(settings, on_call=replayed.append)
    assert await second.text("scripted", MESSAGES, task="align") == "first answer"
    assert second.calls_made == 0 and second.cost == 0.0
    assert [r.cached for r in replayed] == [True]
    assert replayed[0].key == records[0].key
    second.close()


async def test_k_samples_are_k_entries(write_script, settings_for, records) -> None:
    script = write_script(
        {
            "rules": [
                {"task": "vote", "sample": 1, "response": {"decision": "no"}},
                {"task": "vote", "response": {"decision": "yes"}},
            ]
        }
    )
    settings = settings_for(script_path=script)
    client = LLMClient(settings, on_call=records.append)
    votes = [await client.text("scripted", MESSAGES, task="vote", sample_index=i) for i in range(3)]
    assert votes == ['{"decision": "yes"}', '{"decision": "no"}', '{"decision": "yes"}']
    assert len({r.key for r in records}) == 3
    cache = ResponseCache(settings.cache_path)
    assert cache.count() == 3
    cache.close()
    again = [await client.text("scripted", MESSAGES, task="vote", sample_index=i) for i in range(3)]
    assert again == votes and client.calls_made == 3
    client.close()


async def test_errors_are_not_cached(write_script, settings_for, records) -> None:
    script = write_script({"rules": [{"task": "t", "error": "boom"}]})
    settings = settings_for(script_path=script)
    client = LLMClient(settings, on_call=records.append)
    for _ in range(2):
        with pytest.raises(LLMError, match="boom"):
            await client.text("scripted", MESSAGES, task="t")
    assert [r.cached for r in records] == [False, False]
    assert all(r.error and "boom" in r.error for r in records)
    assert ResponseCache(settings.cache_path).count() == 0
    client.close()


async def test_unmatched_task_is_an_error_naming_the_task(write_script, settings_for) -> None:
    client = LLMClient(settings_for(script_path=write_script({"rules": []})))
    with pytest.raises(LLMError, match="no rule matches task 'mystery'"):
        await client.text("scripted", MESSAGES, task="mystery")
    client.close()


async def test_editing_the_script_invalidates_its_answers(write_script, settings_for) -> None:
    settings = settings_for(script_path=write_script({"default": "old"}))
    client = LLMClient(settings)
    assert await client.text("scripted", MESSAGES, task="t") == "old"
    write_script({"default": "new answer"})
    assert await client.text("scripted", MESSAGES, task="t") == "new answer"
    client.close()


def _entry(key: str) -> CachedResponse:
    return CachedResponse(key=key, model="m", task="t", sample_index=0, text=f"text {key}")


def test_writes_are_committed_at_once(tmp_path) -> None:
    path = tmp_path / "c.db"
    writer = ResponseCache(path)
    writer.put(_entry("k1"))
    # A second connection (as another process would) sees it before the writer closes.
    reader = ResponseCache(path)
    assert reader.get("k1").text == "text k1"
    assert reader.get("missing") is None
    writer.close()
    reader.close()


def test_two_connections_write_concurrently(tmp_path) -> None:
    path = tmp_path / "c.db"
    caches = [ResponseCache(path), ResponseCache(path)]

    def fill(cache: ResponseCache, prefix: str) -> None:
        for i in range(150):
            cache.put(_entry(f"{prefix}{i}"))

    threads = [threading.Thread(target=fill, args=(c, p)) for c, p in zip(caches, "ab")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert caches[0].count() == 300
    for cache in caches:
        cache.close()
