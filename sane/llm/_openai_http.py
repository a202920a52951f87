"""OpenAI-compatible servers called directly through the OpenAI SDK: the fast path.

Why: litellm spends 3.5 to 5 ms of CPU on every call (provider mapping, logging, cost
bookkeeping), and one event loop at 32 calls in flight and 200 ms latency then spends
most of its time in litellm instead of keeping calls in flight. A self-hosted
OpenAI-compatible server (`openai/NAME` with an API base: vLLM, llama.cpp's server, TGI,
a LiteLLM proxy) needs no provider mapping, so the client calls it with the OpenAI SDK
(the library litellm itself uses for it), with the SDK's own retries off: the client
retries, times out and records every attempt the same way whatever the transport.
A failure is mapped to the exception litellm raises for it (litellm's own mapping, on the
error path only), so the retry policy (`sane.llm._retry`), the recorded causes and the
key's environment variable read exactly as through litellm; litellm's price table still
prices the call.

Hosted providers, other prefixes and router groups that need litellm's routing
(fallbacks, rate-limited deployments) keep going through litellm.
"""

from __future__ import annotations

import asyncio
import weakref
from functools import lru_cache
from typing import Any

import openai

PROVIDER = "openai"
# The OpenAI SDK's ChatCompletion has what the client reads: choices[0].message.content,
# choices[0].finish_reason and usage.prompt_tokens / completion_tokens.
ChatCompletion = Any


class Endpoints:
    """One SDK client per (base URL, key) and event loop: a client's connection pool
    belongs to the loop that opened it."""

    def __init__(self, timeout_s: float) -> None:
        self._timeout_s = timeout_s
        self._clients: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[tuple[str, str], openai.AsyncOpenAI]
        ] = weakref.WeakKeyDictionary()

    def client(self, base_url: str, api_key: str | None) -> openai.AsyncOpenAI:
        clients = self._clients.setdefault(asyncio.get_running_loop(), {})
        key = (base_url, api_key or "")
        if key not in clients:
            # without a key the SDK reads OPENAI_API_KEY, and fails naming it, as litellm does
            clients[key] = openai.AsyncOpenAI(
                base_url=base_url, api_key=api_key, max_retries=0, timeout=self._timeout_s
            )
        return clients[key]

    async def complete(
        self,
        model: str,
        base_url: str,
        api_key: str | None,
        messages: list[dict[str, str]],
        params: dict[str, Any],
    ) -> ChatCompletion:
        """One chat completion; `model` is the server's model name (no provider prefix) and
        `params` the call's sampling parameters (None values are left out)."""
        sent = {name: value for name, value in params.items() if value is not None}
        try:
            return await self.client(base_url, api_key).chat.completions.create(
                model=model,
                messages=messages,  # type: ignore[arg-type]
                **sent,
            )
        except Exception as error:  # noqa: BLE001 - every failure is mapped, none swallowed
            raise _as_litellm_error(model, error) from error


def _as_litellm_error(model: str, error: Exception) -> Exception:
    """The exception litellm raises for `error` from its openai provider (a 503 is a
    ServiceUnavailableError, a malformed body an APIConnectionError, ...)."""
    import litellm

    try:
        litellm.exception_type(
            model=model, original_exception=error, custom_llm_provider=PROVIDER
        )
    except Exception as mapped:  # noqa: BLE001 - exception_type raises its answer
        return mapped
    return error


@lru_cache(maxsize=256)
def _rates(model: str) -> tuple[float, float] | None:
    """litellm's (prompt, completion) USD per token for an `openai/NAME` model, once per
    model (looking it up costs about a millisecond); None when litellm has no price."""
    import litellm

    try:
        prompt, _ = litellm.cost_per_token(model=model, prompt_tokens=1_000_000)
        _, completion = litellm.cost_per_token(model=model, completion_tokens=1_000_000)
    except Exception:  # noqa: BLE001 - litellm raises several types for an unknown model
        return None
    return prompt / 1_000_000, completion / 1_000_000


def price(model: str, prompt_tokens: int, completion_tokens: int) -> float:
    """The call's USD price by litellm's table; 0 for a model it does not price."""
    rates = _rates(model)
    if rates is None:
        return 0.0
    return rates[0] * prompt_tokens + rates[1] * completion_tokens
