"""Several deployments of one model behind a litellm Router, and per-provider rate limits.

Why: one endpoint is often not enough for thousands of votes (its rate limit,
its availability). A router file lists deployments in litellm's own format;
`router/<model_name>` then load-balances over the deployments of that name and
falls back as the file says. The client still does the retries itself (the
router's own are off), so every attempt stays visible in the call records, and
the cache key is the router model string, whichever deployment answered.

A group whose deployments are all OpenAI-compatible servers (`openai/NAME` with an
`api_base`, nothing else) in a file that asks for no more than simple-shuffle or
least-busy routing is dispatched by sane itself: each call goes to the deployment with
the fewest calls in flight, directly over HTTP (sane.llm._openai_http), at a
fraction of litellm Router's CPU per call. Anything else in the file (fallbacks,
per-deployment rpm, another strategy) sends the calls through litellm's Router.

Rate limits are requests per minute per provider prefix (`openai`, `router`,
...), enforced by a leaky bucket before a call takes a concurrency slot.

A router file::

    model_list:
      - model_name: judge
        litellm_params: {model: openai/gpt-4o-mini, api_base: "http://a:8000/v1", rpm: 600}
      - model_name: judge
        litellm_params: {model: openai/gpt-4o-mini, api_base: "http://b:8000/v1", rpm: 600}
    router_settings: {routing_strategy: simple-shuffle, fallbacks: [{judge: [judge-backup]}]}
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from aiolimiter import AsyncLimiter
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sane.errors import InputError, LLMError
from sane.llm._providers import OPENAI_PREFIX, CallContext, Route, register_route, server_model
from sane.llm._secrets import SECRET_PARAM
from sane.llm._settings import LLMSettings

PROVIDER = "router"
# The client retries and times out each attempt itself; the router must not do it again.
FORCED_SETTINGS = {"num_retries": 0}


class Deployment(BaseModel):
    model_config = ConfigDict(extra="allow")

    model_name: str = Field(min_length=1)
    litellm_params: dict[str, Any]


class RouterFile(BaseModel):
    """A router file: litellm's model_list plus keyword arguments of litellm.Router."""

    model_config = ConfigDict(extra="forbid")

    model_list: list[Deployment] = Field(min_length=1)
    router_settings: dict[str, Any] = Field(default_factory=dict)


def load_router(path: Path) -> tuple[Any, set[str]]:
    """A litellm Router from a router file and its model names; a bad file is an InputError."""
    import litellm

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        parsed = RouterFile.model_validate(data)
    except OSError as exc:
        raise InputError(str(path), "--router", f"cannot read the router file: {exc}") from None
    except (yaml.YAMLError, ValidationError) as exc:
        problem = " ".join(str(exc).split())[:300]
        raise InputError(str(path), "--router", f"not a router file: {problem}") from None
    missing = [d.model_name for d in parsed.model_list if "model" not in d.litellm_params]
    if missing:
        raise InputError(str(path), "model_list", f"deployment {missing[0]!r} lacks a model")
    try:
        router = litellm.Router(
            model_list=[d.model_dump() for d in parsed.model_list],
            **{**parsed.router_settings, **FORCED_SETTINGS},
        )
    except Exception as exc:  # noqa: BLE001 - litellm raises many types for a bad config
        raise InputError(str(path), "router_settings", " ".join(str(exc).split())[:300]) from None
    return router, {d.model_name for d in parsed.model_list}


@dataclass
class DirectDeployment:
    """One OpenAI-compatible server of a group sane dispatches itself."""

    model: str  # the server's model name (no provider prefix)
    base_url: str
    api_key: str | None
    in_flight: int = 0


class DirectGroup:
    """The deployments of one router model, chosen least-busy (ties in turn)."""

    def __init__(self, deployments: list[DirectDeployment]) -> None:
        self.deployments = deployments
        self._turn = 0

    @contextlib.contextmanager
    def pick(self) -> Iterator[DirectDeployment]:
        """The deployment with the fewest calls in flight, held for the call."""
        count = len(self.deployments)
        order = [self.deployments[(self._turn + i) % count] for i in range(count)]
        chosen = min(order, key=lambda d: d.in_flight)  # the first of the least busy
        self._turn = (self._turn + 1) % count
        chosen.in_flight += 1
        try:
            yield chosen
        finally:
            chosen.in_flight -= 1


DIRECT_STRATEGIES = frozenset({"simple-shuffle", "least-busy"})
DIRECT_PARAMS = frozenset({"model", "api_base", "api_key"})


def direct_groups(parsed: RouterFile) -> dict[str, DirectGroup]:
    """The groups sane can dispatch itself: none when the file asks litellm's Router for
    more than simple-shuffle or least-busy routing; otherwise every group whose deployments
    are all `openai/NAME` servers with an api_base and no other setting."""
    settings = parsed.router_settings
    if set(settings) - {"routing_strategy"} or (
        settings.get("routing_strategy", "simple-shuffle") not in DIRECT_STRATEGIES
    ):
        return {}
    groups: dict[str, list[Deployment]] = {}
    for deployment in parsed.model_list:
        groups.setdefault(deployment.model_name, []).append(deployment)

    def direct(d: Deployment) -> bool:
        params = d.litellm_params
        return (
            not d.model_extra
            and set(params) <= DIRECT_PARAMS
            and str(params.get("model", "")).startswith(f"{OPENAI_PREFIX}/")
            and bool(params.get("api_base"))
            # litellm reads `os.environ/NAME` values from the environment; leave it to it
            and not any(str(v).startswith("os.environ/") for v in params.values())
        )

    return {
        name: DirectGroup(
            [
                DirectDeployment(
                    server_model(str(d.litellm_params["model"])),
                    str(d.litellm_params["api_base"]),
                    d.litellm_params.get("api_key"),
                )
                for d in deployments
            ]
        )
        for name, deployments in groups.items()
        if all(direct(d) for d in deployments)
    }


class RouterHolder:
    """The client's router, loaded on first use; `router/NAME` must name a model group."""

    def __init__(self, path: Path | None) -> None:
        self._path = path
        self._router: Any = None
        self._names: set[str] = set()
        self._direct: dict[str, DirectGroup] = {}

    def get(self, model: str, group: str) -> Any:
        """The litellm Router that serves `group`."""
        if self._path is None:
            raise LLMError(model, "a router/NAME model needs a router file (--router FILE)")
        if self._router is None:
            self._router, self._names = load_router(self._path)
            self._direct = direct_groups(_parse(self._path))
        if group not in self._names:
            known = ", ".join(sorted(self._names))
            raise LLMError(model, f"the router file has no model '{group}' (known: {known})")
        return self._router

    def direct(self, model: str, group: str) -> DirectGroup | None:
        """The deployments sane dispatches itself for `group`, or None: litellm's Router."""
        self.get(model, group)
        return self._direct.get(group)


class RateLimits:
    """One leaky bucket per provider prefix and event loop, from requests-per-minute limits."""

    def __init__(self, per_minute: dict[str, float]) -> None:
        self._per_minute = per_minute
        self._buckets: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[str, AsyncLimiter]
        ] = weakref.WeakKeyDictionary()

    def bucket(self, model: str) -> AsyncLimiter | None:
        provider = model.split("/", 1)[0]
        rpm = self._per_minute.get(provider)
        if rpm is None:
            return None
        buckets = self._buckets.setdefault(asyncio.get_running_loop(), {})
        if provider not in buckets:
            # Capacity of one second's worth: steady at the limit, never a minute-long burst.
            per_second = rpm / 60.0
            buckets[provider] = (
                AsyncLimiter(per_second, 1.0) if per_second >= 1 else AsyncLimiter(1, 60.0 / rpm)
            )
        return buckets[provider]


def _parse(path: Path) -> RouterFile:
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    return RouterFile.model_validate(data)


def _group(path: Path, group: str) -> list[dict[str, Any]]:
    """The litellm_params of the deployments behind one router model name."""
    return [dict(d.litellm_params) for d in _parse(path).model_list if d.model_name == group]


def deployment_models(path: Path, group: str) -> list[str]:
    """The litellm models behind one router model name (empty if the name is unknown)."""
    return [str(params["model"]) for params in _group(path, group)]


@lru_cache(maxsize=64)
def _deployments(path: str, mtime_ns: int, group: str) -> str:
    """A fingerprint of the deployments behind one model name (models, endpoints and other
    parameters; never their secrets), so a cached answer is only reused from the same ones."""
    deployments = [
        {k: v for k, v in params.items() if not SECRET_PARAM.search(k)}
        for params in _group(Path(path), group)
    ]
    canonical = json.dumps(deployments, sort_keys=True, default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@register_route(PROVIDER)
def router_route(model: str, settings: LLMSettings, ctx: CallContext) -> Route:
    group = model.split("/", 1)[1] if "/" in model else ""
    if not group:
        raise LLMError(model, "a router model needs a name: router/<model_name>")
    extra = {}
    if settings.router_path is not None:
        path = Path(settings.router_path)
        extra = {"deployments": _deployments(str(path), path.stat().st_mtime_ns, group)}
    return Route(group, {}, priced=True, via_router=True, key_extra=extra)
