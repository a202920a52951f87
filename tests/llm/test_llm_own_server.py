"""A user's own OpenAI-compatible server, as llama-cpp-python's stock server behaves: it
refuses `json_schema` (a 500 naming the format), serves one request at a time and drops a
request whose client has gone. A loopback fake here; the real server in
tests/local/test_own_server.py."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from llm_server import Reply
from pydantic import BaseModel

from sane.llm import LLMClient
from sane.records import OutputContract
from sane.scorers.execute import score_variants

# llama-cpp-python 0.3's answer to `response_format: {"type": "json_schema", ...}`
REFUSAL = (
    "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', "
    "'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}"
)


class Score(BaseModel):
    score: int


def _format(body: dict[str, Any]) -> str:
    fmt = body.get("response_format")
    if fmt is None:
        return "none"
    return fmt["type"] + ("+schema" if "schema" in fmt else "")


def _refusing(*refused: str, status: int = 500):
    def respond(body: dict[str, Any]) -> Reply | None:
        if _format(body) in refused:
            return Reply(status=status, content=REFUSAL)
        return Reply(content='{"score": 4}')

    return respond


def _client(openai_server, settings_for, records=None, **overrides: Any) -> LLMClient:
    settings = settings_for(api_base=openai_server.base_url, api_key="k", **overrides)
    return LLMClient(settings, on_call=records.append if records is not None else None)


async def _ask(client: LLMClient, n: int) -> list[Score]:
    return await asyncio.gather(
        *(
            client.structured(
                "openai/m", [{"role": "user", "content": f"rate {i}"}], Score, task="judge"
            )
            for i in range(n)
        )
    )


async def test_a_refused_json_schema_falls_back_once_and_is_remembered(
    openai_server, settings_for, records
) -> None:
    """The first call is refused json_schema (a 500 naming the format): that is not retried
    as a transient error; the call asks again with json_object carrying the schema, and every
    later call of the run starts there."""
    openai_server.respond = _refusing("json_schema")
    client = _client(openai_server, settings_for, records, concurrency=1)
    answers = await _ask(client, 4)
    assert [a.score for a in answers] == [4] * 4
    sent = [_format(body) for body in openai_server.requests]
    assert sent == ["json_schema"] + ["json_object+schema"] * 4
    (refused,) = [r for r in records if r.error]
    assert "response_format json_schema refused" in refused.error
    client.close()


async def test_each_refused_format_steps_down_until_the_prompt_alone(
    openai_server, settings_for
) -> None:
    """A server that takes no response_format at all (a 422 naming it, as TGI answers) is
    asked with the prompt alone, which shows the shape; the reply is validated."""
    refused = ("json_schema", "json_object+schema", "json_object")
    openai_server.respond = _refusing(*refused, status=422)
    client = _client(openai_server, settings_for, concurrency=1)
    assert [a.score for a in await _ask(client, 2)] == [4, 4]
    assert [_format(body) for body in openai_server.requests] == [*refused, "none", "none"]
    assert '"score"' in openai_server.requests[-1]["messages"][0]["content"]  # shape shown
    client.close()


async def test_a_bad_request_that_is_not_about_the_format_stays_an_error(
    openai_server, settings_for
) -> None:
    """A 400 for another reason (a prompt too long) is permanent: one attempt, no fallback."""
    openai_server.default = Reply(status=400, content="context length exceeded")
    client = _client(openai_server, settings_for)
    try:
        await _ask(client, 1)
    except Exception as error:  # noqa: BLE001 - the error is the point
        assert "after 1 attempt(s)" in str(error)
    else:
        raise AssertionError("a 400 was answered")
    assert [_format(body) for body in openai_server.requests] == ["json_schema"]
    client.close()


async def test_a_server_that_serves_one_request_at_a_time_narrows_the_calls_in_flight(
    openai_server, settings_for
) -> None:
    """At the default concurrency, 8 calls go out at once and the server queues them itself:
    the later ones time out. A timeout narrows that server's limit (halved once per wave of
    calls sent together) and the calls are retried under it, so every call gets its answer."""
    openai_server.serial_s = 0.2
    client = _client(openai_server, settings_for, timeout_s=0.7, concurrency=8)
    replies = await asyncio.gather(
        *(
            client.text("openai/m", [{"role": "user", "content": f"q{i}"}], task="judge")
            for i in range(8)
        )
    )
    assert replies == ["ok"] * 8
    (limit,) = next(iter(client._servers.values())).values()
    assert limit.size < 8
    client.close()


@dataclass
class ServerJudge:
    """A judge target on the server (the executor's view of one: sane.scorers.base.Target)."""

    client: LLMClient
    name: str = "judge"
    contract: OutputContract = field(default_factory=lambda: OutputContract(min=1, max=5))
    fields: tuple[str, ...] = ("text",)
    deterministic: bool = False

    async def score(self, record: dict[str, str], repeat: int = 0) -> float:
        reply = await self.client.text(
            "openai/m", [{"role": "user", "content": record["text"]}], task="judge"
        )
        return float(reply)


async def test_a_judge_call_is_timed_from_when_it_is_sent_not_from_its_place_in_the_queue(
    openai_server, settings_for
) -> None:
    """A target's `--timeout` covers its call, not the calls queued before it: six judge
    calls at concurrency 1 on a server taking 0.2 s each, each under a 0.5 s timeout (the
    last is sent 1 s after it was made), all answer."""
    openai_server.default = Reply(content="3")
    openai_server.serial_s = 0.2
    judge = ServerJudge(_client(openai_server, settings_for, concurrency=1))
    records = {f"r{i}": {"text": f"q{i}"} for i in range(6)}
    scores = await score_variants(judge, records, repeats=1, timeout_s=0.5)
    assert scores == {role: [3.0] for role in records}
    judge.client.close()
