"""Model routing: a registry from a model-string prefix to how a model is called.

Every model, including the scripted test model and the embedded local models, goes
through one client, so caching, retries and call records are uniform. A route says which
model string litellm sees, what extra arguments it gets and whether litellm can price the
call; a self-hosted OpenAI-compatible server (`openai/NAME` with an API base) is called
directly over HTTP instead (`direct`, sane.llm._openai_http), which costs a
fraction of litellm's CPU per call. Custom litellm providers (CustomLLM handlers) register
here too, by provider name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sane._registry import Registry
from sane.llm._settings import LLMSettings


@dataclass(frozen=True)
class CallContext:
    """What a route may pass through to a provider besides the messages."""

    task: str
    sample_index: int
    seed: int | None = None


@dataclass(frozen=True)
class Route:
    """How one call reaches litellm.

    `key_extra` holds whatever else decides the answer for this provider (the
    scripted model answers by task and rules file), so it joins the cache key.
    """

    litellm_model: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    priced: bool = True
    key_extra: dict[str, Any] = field(default_factory=dict)
    via_router: bool = False  # sent through the client's router (sane.llm._router)
    # an OpenAI-compatible server at kwargs["api_base"], called directly over HTTP
    direct: bool = False
    serial: bool = False  # one call at a time (a local model): the timeout starts once it runs
    # a provider answered in this process, with no transport (a simulation): the messages in,
    # the reply text out; an exception with `status_code` 400 is a permanent failure
    in_process: Callable[[list[dict[str, str]]], str] | None = None
    # the provider holds every reply to the call's JSON schema itself (the embedded runtime
    # turns it into a grammar), so the prompt need not spell the schema out (sane.llm._structured)
    enforces_schema: bool = False
    # loads what the calls need (an embedded model's weights) before the first call is timed:
    # a loading is no call's time (sane.llm._client runs it once, in a thread, in the turn)
    warm: Callable[[], Any] | None = None

    @property
    def serial_key(self) -> str | None:
        """The resource a serial route's calls queue for (its provider), else None."""
        return self.litellm_model.split("/", 1)[0] if self.serial else None


OPENAI_PREFIX = "openai"  # litellm's prefix for any OpenAI-compatible server


def server_model(model: str) -> str:
    """The model name an OpenAI-compatible server knows (`openai/NAME` -> NAME)."""
    return model.removeprefix(f"{OPENAI_PREFIX}/")


RouteBuilder = Callable[[str, LLMSettings, CallContext], Route]

ROUTES: Registry[RouteBuilder] = Registry("model route", group="sane.providers")
# factories of litellm CustomLLM handlers, by provider name
CUSTOM_PROVIDERS: Registry[Callable[[], Any]] = Registry("custom provider", group="sane.providers")
register_route = ROUTES.register
register_custom_provider = CUSTOM_PROVIDERS.register


def plain_route(model: str, settings: LLMSettings, ctx: CallContext) -> Route:
    """Any litellm provider string; api_base/api_key for OpenAI-compatible servers. The
    endpoint joins the cache key: another server's answers are not this one's."""
    kwargs: dict[str, Any] = {}
    if settings.api_base is not None:
        kwargs["api_base"] = settings.api_base
    if settings.api_key is not None:
        kwargs["api_key"] = settings.api_key
    extra = {"api_base": settings.api_base} if settings.api_base is not None else {}
    direct = settings.api_base is not None and model.startswith(f"{OPENAI_PREFIX}/")
    return Route(model, kwargs, key_extra=extra, direct=direct)


def resolve_route(model: str, settings: LLMSettings, ctx: CallContext) -> Route:
    prefix = model.split("/", 1)[0]
    return ROUTES.get(prefix, plain_route)(model, settings, ctx)


def enforces_schema(model: str, settings: LLMSettings) -> bool:
    """Whether `model`'s provider holds replies to a structured call's schema by itself."""
    return resolve_route(model, settings, CallContext("structured", 0)).enforces_schema
