"""router/<name> over several loopback deployments, fallbacks, bad router files, rate limits."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from llm_server import Reply, serve

from sane.errors import InputError, LLMError
from sane.llm import LLMClient, LLMSettings


def _router_file(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "router.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def _deployment(name: str, base_url: str) -> dict[str, Any]:
    return {
        "model_name": name,
        "litellm_params": {"model": "openai/m", "api_base": base_url, "api_key": "k"},
    }


async def test_router_spreads_calls_over_deployments(
    tmp_path: Path, settings_for: Callable[..., LLMSettings]
) -> None:
    with serve() as a, serve() as b:
        router = _router_file(
            tmp_path,
            {"model_list": [_deployment("judge", a.base_url), _deployment("judge", b.base_url)]},
        )
        client = LLMClient(settings_for(router_path=router, concurrency=4))
        replies = await asyncio.gather(
            *(
                client.text("router/judge", [{"role": "user", "content": f"q{i}"}], task="t")
                for i in range(24)
            )
        )
        client.close()
    assert replies == ["ok"] * 24
    assert a.requests and b.requests  # both deployments served
    assert len(a.requests) + len(b.requests) == 24


async def test_router_falls_back_to_another_group(
    tmp_path: Path, settings_for: Callable[..., LLMSettings]
) -> None:
    with serve() as down, serve() as backup:
        down.default = Reply(status=500, content="down")
        router = _router_file(
            tmp_path,
            {
                "model_list": [
                    _deployment("judge", down.base_url),
                    _deployment("spare", backup.base_url),
                ],
                "router_settings": {"fallbacks": [{"judge": ["spare"]}]},
            },
        )
        client = LLMClient(settings_for(router_path=router, provider_retries=0))
        reply = await client.text("router/judge", [{"role": "user", "content": "q"}], task="t")
        client.close()
    assert reply == "ok"
    assert down.requests and backup.requests


def test_bad_router_file_is_bad_input(
    tmp_path: Path, settings_for: Callable[..., LLMSettings]
) -> None:
    router = _router_file(tmp_path, {"model_list": []})
    with pytest.raises(InputError, match="router"):
        LLMClient(settings_for(router_path=router))


async def test_unknown_router_model_is_an_error(
    tmp_path: Path, settings_for: Callable[..., LLMSettings]
) -> None:
    router = _router_file(tmp_path, {"model_list": [_deployment("judge", "http://127.0.0.1:9")]})
    client = LLMClient(settings_for(router_path=router, provider_retries=0))
    with pytest.raises(LLMError, match="no model 'other'"):
        await client.text("router/other", [{"role": "user", "content": "q"}], task="t")
    client.close()


async def test_rate_limit_spaces_calls(settings_for: Callable[..., LLMSettings]) -> None:
    with serve() as fake:
        client = LLMClient(
            settings_for(api_base=fake.base_url, api_key="k", rate_limits={"openai": 1200})
        )
        started = time.monotonic()
        await asyncio.gather(
            *(
                client.text("openai/m", [{"role": "user", "content": f"q{i}"}], task="t")
                for i in range(40)
            )
        )
        elapsed = time.monotonic() - started
        client.close()
    # 1200/min = 20/s: the first second's worth goes at once, the other 20 take about 1 s
    assert elapsed >= 0.8
    assert len(fake.requests) == 40


def test_rate_limits_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        LLMSettings(rate_limits={"openai": 0})
