"""The `local/<name>` provider, with the embedded model replaced by a fake."""

from __future__ import annotations

import asyncio
import threading
import time
import types
from dataclasses import dataclass, field
from typing import Literal

import pytest
from pydantic import BaseModel

from sane.llm import LLMClient
from sane.llm._local import call_seed
from sane.local.llama import LocalCompletion
from sane.records import OutputContract
from sane.scorers.execute import score_variants


class Verdict(BaseModel):
    decision: Literal["yes", "no"]


@pytest.fixture
def fake_llama(monkeypatch):
    calls: list[dict] = []
    state: dict = {"running": 0, "peak": 0, "loaded": [], "load_s": 0.0}
    guard = threading.Lock()

    def load(name, **kwargs):
        """As the runtime loads a model on its first use: slowly, once (LOAD_S)."""
        with guard:
            if name in state["loaded"]:
                return
            time.sleep(state["load_s"])
            state["loaded"].append(name)

    def chat(name, messages, *, json_schema, temperature, seed, max_tokens):
        load(name)  # the real chat loads its model on first use too
        with guard:
            state["running"] += 1
            state["peak"] = max(state["peak"], state["running"])
        time.sleep(0.01)
        calls.append(
            {
                "name": name,
                "schema": json_schema,
                "seed": seed,
                "temperature": temperature,
                "messages": messages,
            }
        )
        with guard:
            state["running"] -= 1
        decision = "yes" if seed % 2 == 0 else "no"
        return LocalCompletion(f'{{"decision": "{decision}"}}', 7, 3)

    module = types.ModuleType("sane.local.llama")
    module.chat = chat
    module.load = load
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
    sent = calls[0]["messages"]  # the prompt with the schema instruction, as the model gets it
    seeds = [call_seed(0, i, sent) for i in range(4)]
    assert [v.decision for v in votes] == ["yes" if s % 2 == 0 else "no" for s in seeds]
    assert state["peak"] == 1  # one local model call at a time
    assert sorted(c["seed"] for c in calls) == sorted(seeds)
    assert len(set(seeds)) == 4
    assert all(c["name"] == "qwen" for c in calls)
    assert all(c["schema"] == Verdict.model_json_schema() for c in calls)
    assert all(r.prompt_tokens == 7 and r.completion_tokens == 3 for r in records)
    assert client.cost == 0.0
    client.close()


async def test_a_prompt_that_shows_its_shape_is_not_sent_the_schema_text(
    fake_llama, settings_for, write_script
) -> None:
    """The embedded runtime holds the reply to the schema by grammar, so a prompt that ends
    with its reply's shape is not also sent the schema's text (a recipe list's is about
    1,000 tokens to evaluate). A judge's rubric shows no shape: it keeps the text, and so
    does every call to a provider that does not enforce the schema."""
    calls, _ = fake_llama
    client = LLMClient(settings_for())
    shown = [{"role": "user", "content": 'Vote.\nReturn {"decision": "yes" or "no"}.'}]
    await client.structured("local/qwen", shown, Verdict, task="vote", shape_shown=True)
    await client.structured("local/qwen", shown, Verdict, task="judge")
    lean, full = (c["messages"][0]["content"] for c in calls)
    assert "JSON object only" in lean and '"enum"' not in lean
    assert '"enum":["yes","no"]' in full
    assert all(c["schema"] == Verdict.model_json_schema() for c in calls)  # the grammar's
    client.close()

    script = write_script({"rules": [{"contains": '"enum"', "response": {"decision": "no"}}]})
    scripted = LLMClient(settings_for(script_path=script))
    verdict = await scripted.structured("scripted/any", shown, Verdict, task="v", shape_shown=True)
    assert verdict.decision == "no"  # the rule matched the schema's text
    scripted.close()


def test_each_call_draws_its_own_seed_and_a_rerun_the_same():
    """Votes on different questions draw independently: the seed depends on the prompt, not
    only on the run seed and the vote's index; the same call always gets the same seed."""
    one, other = [{"role": "user", "content": "Vote."}], [{"role": "user", "content": "Vote!"}]
    assert call_seed(0, 1, one) == call_seed(0, 1, one)
    seeds = {call_seed(0, 1, one), call_seed(0, 1, other), call_seed(0, 2, one)}
    assert len(seeds | {call_seed(1, 1, one)}) == 4
    assert all(0 <= call_seed(s, i, one) < 2**32 - 1 for s in range(20) for i in range(20))


@dataclass
class LocalJudge:
    """A judge target on the embedded model, as the executor sees one."""

    client: LLMClient
    name: str = "judge"
    contract: OutputContract = field(default_factory=lambda: OutputContract(min=0, max=1))
    fields: tuple[str, ...] = ("text",)
    deterministic: bool = False

    async def score(self, record: dict[str, str], repeat: int = 0) -> float:
        messages = [{"role": "user", "content": record["text"]}]
        vote = await self.client.structured("local/qwen", messages, Verdict, task="judge")
        return 1.0 if vote.decision == "yes" else 0.0


async def test_a_models_loading_is_not_counted_against_the_call_timeout(
    fake_llama, settings_for
) -> None:
    """Loading an embedded model takes tens of seconds on a loaded machine; it happens once,
    before the first call is timed, so a load longer than a judge's `--timeout` fails no
    call (it failed every call queued behind the load)."""
    _, state = fake_llama
    state["load_s"] = 0.6
    judge = LocalJudge(LLMClient(settings_for()))
    records = {f"r{i}": {"text": f"case {i}"} for i in range(3)}
    scores = await score_variants(judge, records, repeats=1, timeout_s=0.3)
    assert set(scores) == set(records) and state["loaded"] == ["qwen"]
    judge.client.close()


def test_an_embedded_model_gets_the_longer_default_timeout_unless_one_is_set() -> None:
    """120 s failed `generate` on a loaded 2-core machine; `--llm-timeout` still decides."""
    from sane.llm import LLMSettings
    from sane.llm._settings import EMBEDDED_TIMEOUT_S, SERVER_TIMEOUT_S

    assert LLMSettings().call_timeout_s(one_at_a_time=True) == EMBEDDED_TIMEOUT_S == 900
    assert LLMSettings().call_timeout_s(one_at_a_time=False) == SERVER_TIMEOUT_S == 120
    assert LLMSettings(timeout_s=30).call_timeout_s(one_at_a_time=True) == 30
