"""The `local/<name>` provider, with the embedded model replaced by a fake."""

from __future__ import annotations

import asyncio
import threading
import time
import types
from typing import Literal

import pytest
from pydantic import BaseModel

from sane.llm import LLMClient
from sane.local.llama import LocalCompletion


class Verdict(BaseModel):
    decision: Literal["yes", "no"]


@pytest.fixture
def fake_llama(monkeypatch):
    calls: list[dict] = []
    state = {"running": 0, "peak": 0}
    guard = threading.Lock()

    def chat(name, messages, *, json_schema, temperature, seed, max_tokens):
        with guard:
            state["running"] += 1
            state["peak"] = max(state["peak"], state["running"])
        time.sleep(0.01)
        calls.append(
            {"name": name, "schema": json_schema, "seed": seed, "temperature": temperature}
        )
        with guard:
            state["running"] -= 1
        decision = "yes" if seed % 2 == 0 else "no"
        return LocalCompletion(f'{{"decision": "{decision}"}}', 7, 3)

    module = types.ModuleType("sane.local.llama")
    module.chat = chat
    monkeypatch.setitem(__import__("sys").modules, "sane.local.llama", module)
    return calls, state


async def test_local_calls_are_serialised_and_seeded(fake_llama, settings_for, records) -> None:
    calls, state = fake_llama
    client = LLMClient(settings_for(concurrency=4), on_call=records.append)
    messages = [{"role": "user", "content": "Vote."}]
    votes = await asyncio.gather(
        *(
            client.structured("local/qwen", messages, Verdict, task="vote", sample_index=i)
            for i in range(4)
        )
    )
    assert [v.decision for v in votes] == ["yes", "no", "yes", "no"]
    assert state["peak"] == 1  # one local model call at a time
    assert sorted(c["seed"] for c in calls) == [0, 1, 2, 3]
    assert all(c["name"] == "qwen" for c in calls)
    assert all(c["schema"] == Verdict.model_json_schema() for c in calls)
    assert all(r.prompt_tokens == 7 and r.completion_tokens == 3 for r in records)
    assert client.cost == 0.0
    client.close()
