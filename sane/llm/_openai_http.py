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
prices the call (`sane.llm._budget.price`).

Hosted providers, other prefixes and router groups that need litellm's routing
(fallbacks, rate-limited deployments) keep going through litellm.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

import openai
from openai.types.chat import ChatCompletion

PROVIDER = "openai"


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

    async def aclose(self) -> None:
        """Close this event loop's connections. An SDK client left to the garbage collector
        closes itself on whatever loop then runs, which fails for a finished one."""
        clients = self._clients.pop(asyncio.get_running_loop(), {})
        for client in clients.values():
            await client.close()

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
        body = {"model": model, "messages": messages}
        body.update({name: value for name, value in params.items() if value is not None})
        try:
            # The SDK's raw POST: `chat.completions.create` first walks the whole request
            # (messages and JSON schema) through its type transforms, which doubles its CPU
            # per call (measured: 2.0 against 1.0 ms); the body here is already plain JSON.
            return await self.client(base_url, api_key).post(
                "/chat/completions", cast_to=ChatCompletion, body=body
            )
        except Exception as error:
            raise _as_litellm_error(model, error) from error


def _as_litellm_error(model: str, error: Exception) -> Exception:
    """The exception litellm raises for `error` from its openai provider (a 503 is a
    ServiceUnavailableError, a malformed body an APIConnectionError, ...)."""
    import litellm

    try:
        litellm.exception_type(model=model, original_exception=error, custom_llm_provider=PROVIDER)
    except Exception as mapped:  # noqa: BLE001 - exception_type raises its answer
        return mapped
    return error
