"""The direct path: self-hosted OpenAI-compatible servers are called with one HTTP POST,
never through litellm, for `openai/NAME` with an API base and for router groups of such
servers; everything else still goes through litellm."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from llm_server import FakeOpenAI, Reply, serve

from sane.llm import LLMClient, LLMSettings
from sane.llm._providers import CallContext, resolve_route
from sane.llm._router import RouterFile, direct_groups

MESSAGES = [{"role": "user", "content": "q"}]


@pytest.fixture
def litellm_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[dict[str, Any]]]:
    """Every call that reaches litellm.acompletion or a litellm Router, recorded."""
    import litellm

    calls: list[dict[str, Any]] = []
    plain, routed = litellm.acompletion, litellm.Router.acompletion

    async def acompletion(**kwargs: Any) -> Any:
        calls.append(kwargs)
        return await plain(**kwargs)

    async def router_acompletion(self: Any, **kwargs: Any) -> Any:
        calls.append(kwargs)
        return await routed(self, **kwargs)

    monkeypatch.setattr(litellm, "acompletion", acompletion)
    monkeypatch.setattr(litellm.Router, "acompletion", router_acompletion)
    yield calls


def _route(model: str, **settings: Any):
    return resolve_route(model, LLMSettings(**settings), CallContext("t", 0))


def test_only_an_openai_model_with_an_api_base_is_direct() -> None:
    assert _route("openai/m", api_base="http://127.0.0.1:1/v1").direct
    assert not _route("openai/gpt-4o-mini").direct  # OpenAI's own API: litellm
    assert not _route("anthropic/claude", api_base="http://127.0.0.1:1/v1").direct
    assert not _route("scripted").direct


async def test_a_direct_call_sends_the_request_and_never_touches_litellm(
    openai_server: FakeOpenAI, settings_for: Callable[..., LLMSettings], records, litellm_calls
) -> None:
    openai_server.default = Reply(content="hello", prompt_tokens=1000, completion_tokens=1000)
    client = LLMClient(
        settings_for(api_base=openai_server.base_url, api_key="sk-x"), records.append
    )
    text = await client.text(
        "openai/gpt-4o-mini", MESSAGES, task="t", temperature=0.0, max_tokens=7, seed=3
    )
    client.close()
    assert text == "hello" and litellm_calls == []
    body = openai_server.requests[-1]
    assert body["model"] == "gpt-4o-mini"  # the server's name, no provider prefix
    assert (body["temperature"], body["max_tokens"], body["seed"]) == (0.0, 7, 3)
    assert openai_server.headers[-1]["authorization"] == "Bearer sk-x"
    (record,) = records
    assert (record.prompt_tokens, record.completion_tokens) == (1000, 1000)
    # litellm's price table prices the call: gpt-4o-mini costs 0.15 / 0.60 USD per M tokens
    assert record.cost == pytest.approx(0.00015 + 0.0006, rel=0.5)


async def test_a_model_litellm_cannot_price_costs_nothing(
    openai_server: FakeOpenAI, settings_for: Callable[..., LLMSettings], records
) -> None:
    client = LLMClient(settings_for(api_base=openai_server.base_url, api_key="k"), records.append)
    await client.text("openai/my-own-model", MESSAGES, task="t")
    client.close()
    assert records[-1].cost == 0.0 and records[-1].error is None


async def test_an_empty_reply_is_an_error_not_an_answer(
    openai_server: FakeOpenAI, settings_for: Callable[..., LLMSettings], records
) -> None:
    from sane.errors import LLMError

    openai_server.default = Reply(content=None)
    client = LLMClient(
        settings_for(api_base=openai_server.base_url, api_key="k", provider_retries=1),
        records.append,
    )
    with pytest.raises(LLMError, match="no text"):
        await client.text("openai/m", MESSAGES, task="t")
    client.close()
    assert len(openai_server.requests) == 2  # retried once, like any provider hiccup
    assert all(r.error for r in records)


PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "NETRC")


@pytest.fixture
def no_proxy_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """An environment that names no proxy (and no netrc file) until the test sets one."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    return monkeypatch


async def test_a_direct_call_goes_through_the_proxy_the_environment_names(
    openai_server: FakeOpenAI, settings_for: Callable[..., LLMSettings], records, no_proxy_env
) -> None:
    # The loopback server plays the proxy: a proxied plain-HTTP request names the whole URL,
    # here one on a host that only the proxy could reach.
    proxy = openai_server.base_url.removesuffix("/v1").replace("http://", "http://u:s3cret@")
    no_proxy_env.setenv("HTTP_PROXY", proxy)
    target = "http://judge.sane-test.invalid/v1"
    client = LLMClient(settings_for(api_base=target, api_key="k"), records.append)
    for question in ("q1", "q2"):
        assert await client.text("openai/m", [{"role": "user", "content": question}], task="t")
    client.close()
    assert openai_server.paths == [f"{target}/chat/completions"] * 2
    credentials = base64.b64encode(b"u:s3cret").decode()
    assert openai_server.headers[-1]["proxy-authorization"] == f"Basic {credentials}"
    assert openai_server.headers[-1]["authorization"] == "Bearer k"


async def test_no_proxy_exempts_a_server_and_a_netrc_login_is_never_sent(
    openai_server: FakeOpenAI,
    settings_for: Callable[..., LLMSettings],
    records,
    no_proxy_env,
    tmp_path: Path,
) -> None:
    no_proxy_env.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # nothing listens there
    no_proxy_env.setenv("NO_PROXY", "127.0.0.1")
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login someone password other\n", encoding="utf-8")
    netrc.chmod(0o600)
    no_proxy_env.setenv("NETRC", str(netrc))
    client = LLMClient(
        settings_for(api_base=openai_server.base_url, api_key="k", provider_retries=0),
        records.append,
    )
    assert await client.text("openai/m", MESSAGES, task="t") == "ok"
    client.close()
    assert openai_server.paths == ["/v1/chat/completions"]  # straight to the server
    assert openai_server.headers[-1]["authorization"] == "Bearer k"


def _router(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "router.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def _deployment(name: str, base_url: str, **extra: Any) -> dict[str, Any]:
    params = {"model": "openai/m", "api_base": base_url, "api_key": "k", **extra}
    return {"model_name": name, "litellm_params": params}


def test_which_router_groups_sane_dispatches_itself() -> None:
    def groups(settings: dict[str, Any], *deployments: dict[str, Any]) -> set[str]:
        parsed = RouterFile(model_list=list(deployments), router_settings=settings)
        return set(direct_groups(parsed))

    a, b = "http://127.0.0.1:1/v1", "http://127.0.0.1:2/v1"
    assert groups({}, _deployment("j", a), _deployment("j", b)) == {"j"}
    assert groups({"routing_strategy": "least-busy"}, _deployment("j", a)) == {"j"}
    # anything only litellm's Router does keeps the whole file on litellm
    assert groups({"fallbacks": [{"j": ["k"]}]}, _deployment("j", a)) == set()
    assert groups({"routing_strategy": "latency-based-routing"}, _deployment("j", a)) == set()
    # a group with a deployment sane cannot call itself stays on litellm, the others do not
    hosted = {"model_name": "h", "litellm_params": {"model": "anthropic/claude"}}
    limited = _deployment("r", a, rpm=60)
    from_env = _deployment("e", a, api_key="os.environ/SERVER_KEY")
    assert groups({}, _deployment("j", a), hosted, limited, from_env) == {"j"}


async def test_a_direct_router_group_keeps_each_server_equally_busy(
    tmp_path: Path, settings_for: Callable[..., LLMSettings], litellm_calls
) -> None:
    with serve() as a, serve() as b:
        router = _router(
            tmp_path, {"model_list": [_deployment("j", a.base_url), _deployment("j", b.base_url)]}
        )
        client = LLMClient(settings_for(router_path=router, concurrency=8))
        replies = await asyncio.gather(
            *(
                client.text("router/j", [{"role": "user", "content": f"q{i}"}], task="t")
                for i in range(40)
            )
        )
        client.close()
    assert replies == ["ok"] * 40 and litellm_calls == []
    assert abs(len(a.requests) - len(b.requests)) <= 4  # least busy, ties in turn
    assert {r["model"] for r in a.requests + b.requests} == {"m"}


async def test_a_router_file_with_fallbacks_still_goes_through_litellm(
    tmp_path: Path, settings_for: Callable[..., LLMSettings], litellm_calls
) -> None:
    with serve() as a, serve() as spare:
        router = _router(
            tmp_path,
            {
                "model_list": [_deployment("j", a.base_url), _deployment("s", spare.base_url)],
                "router_settings": {"fallbacks": [{"j": ["s"]}]},
            },
        )
        client = LLMClient(settings_for(router_path=router))
        assert await client.text("router/j", MESSAGES, task="t") == "ok"
        client.close()
    assert litellm_calls and a.requests  # the Router, and litellm.acompletion under it
