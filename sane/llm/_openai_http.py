"""OpenAI-compatible servers called directly over HTTP: the fast path.

Why: litellm spends 3.5 to 5 ms of CPU on every call (provider mapping, logging, cost
bookkeeping), and the OpenAI SDK about 1 ms; one event loop at 32 calls in flight and
200 ms latency then spends much of its time there instead of keeping calls in flight. A
self-hosted OpenAI-compatible server (`openai/NAME` with an API base: vLLM, llama.cpp's
server, TGI, a LiteLLM proxy) needs no provider mapping: a chat completion is one JSON
POST, sent here with aiohttp (which litellm itself depends on) at about 0.3 ms of CPU.
The client retries, times out and records every attempt the same way whatever the
transport. A failure is raised as the OpenAI SDK's error for it and mapped to the
exception litellm raises for that (litellm's own mapping, on the error path only), so the
retry policy (`sane.llm._retry`), the recorded causes and a missing key's message read
exactly as through litellm; litellm's price table still prices the call
(`sane.llm._budget.price`).

Hosted providers, other prefixes and router groups that need litellm's routing
(fallbacks, rate-limited deployments) keep going through litellm.
"""

from __future__ import annotations

import asyncio
import json
import os
import weakref
from typing import Any

import aiohttp
import httpx
import openai
from aiohttp.helpers import get_env_proxy_for_url
from pydantic import BaseModel
from yarl import URL

PROVIDER = "openai"
KEY_VARIABLE = "OPENAI_API_KEY"


class Message(BaseModel):
    content: str | None = None


class Choice(BaseModel):
    message: Message
    finish_reason: str | None = None


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0


class ChatReply(BaseModel):
    """What the client reads of a chat completion (anything else the server sends is
    ignored): the same attribute paths as litellm's and the SDK's responses."""

    choices: list[Choice]
    usage: Usage | None = None


class Endpoints:
    """One HTTP session per event loop (a session's connections belong to the loop that
    opened them), shared by every server the client calls.

    Proxies from the environment (HTTP_PROXY, HTTPS_PROXY, NO_PROXY), as litellm's HTTP
    client honours them, are looked up once per server (`env_proxy`), not by the session's
    `trust_env`: that looks them up, and reads ~/.netrc, in a worker thread on every
    request, two thread hand-offs per call that cost a quarter of the client's CPU per
    call and delayed every reply in a burst (benchmarks/bench_pipeline.py). A netrc login
    is never wanted here: every request carries its own Authorization header.
    """

    def __init__(self) -> None:
        self._sessions: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, aiohttp.ClientSession
        ] = weakref.WeakKeyDictionary()
        self._proxies: dict[str, dict[str, Any]] = {}

    def _session(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        session = self._sessions.get(loop)
        if session is None or session.closed:
            # no connection limit of its own (the client's slots are the limit)
            session = self._sessions[loop] = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=0)
            )
        return session

    def _proxy(self, url: str) -> dict[str, Any]:
        proxy = self._proxies.get(url)
        if proxy is None:
            proxy = self._proxies[url] = env_proxy(url)
        return proxy

    async def aclose(self) -> None:
        """Close this event loop's connections (before the loop ends; a session left to
        the garbage collector warns that it was not closed)."""
        session = self._sessions.pop(asyncio.get_running_loop(), None)
        if session is not None:
            await session.close()

    async def complete(
        self,
        model: str,
        base_url: str,
        api_key: str | None,
        messages: list[dict[str, str]],
        params: dict[str, Any],
        timeout_s: float,
    ) -> ChatReply:
        """One chat completion; `model` is the server's model name (no provider prefix),
        `params` the call's sampling parameters (None values are left out) and `timeout_s`
        its time from when it is sent (sane.llm._call_clock.request_timeout)."""
        body: dict[str, Any] = {"model": model, "messages": messages}
        body.update({name: value for name, value in params.items() if value is not None})
        url = base_url.rstrip("/") + "/chat/completions"
        try:
            key = api_key or os.environ.get(KEY_VARIABLE)
            if not key:  # the OpenAI SDK's own words, which litellm reports for a missing key
                raise openai.OpenAIError(
                    "The api_key client option must be set either by passing api_key to the "
                    f"client or by setting the {KEY_VARIABLE} environment variable"
                )
            headers = {"Authorization": f"Bearer {key}"}
            async with self._session().post(
                url,
                json=body,
                headers=headers,
                timeout=aiohttp.ClientTimeout(total=timeout_s),
                **self._proxy(url),
            ) as response:
                raw = await response.read()
                if response.status >= 400:
                    raise _status_error(url, response.status, dict(response.headers), raw)
            return ChatReply.model_validate(json.loads(raw))
        except TimeoutError as error:  # as the OpenAI SDK reports a timeout, and a lost line
            sdk_error: Exception = openai.APITimeoutError(request=httpx.Request("POST", url))
            raise _as_litellm_error(model, sdk_error) from error
        except aiohttp.ClientError as error:
            sdk_error = openai.APIConnectionError(request=httpx.Request("POST", url))
            raise _as_litellm_error(model, sdk_error) from error
        except Exception as error:  # every other failure mapped too, none swallowed
            raise _as_litellm_error(model, error) from error


def env_proxy(url: str) -> dict[str, Any]:
    """The request options that send a request for `url` through the proxy the environment
    names for it (none when NO_PROXY exempts its host), as aiohttp's `trust_env` would."""
    try:
        proxy, auth = get_env_proxy_for_url(URL(url))
    except LookupError:  # no proxy for this scheme, or the host is exempt
        return {}
    if auth is not None:  # sent as Proxy-Authorization (aiohttp deprecates `proxy_auth`)
        proxy = proxy.with_user(auth.login).with_password(auth.password)
    return {"proxy": proxy}


def _status_error(
    url: str, status: int, headers: dict[str, str], raw: bytes
) -> openai.APIStatusError:
    """The OpenAI SDK's error for an error status, with the response's headers (a
    Retry-After is honoured) and the server's own message."""
    text = raw.decode("utf-8", "replace")
    try:
        body: Any = json.loads(text)
    except ValueError:
        body = None
    detail = body.get("error", body) if isinstance(body, dict) else None
    message = detail.get("message") if isinstance(detail, dict) else None
    response = httpx.Response(
        status, headers=headers, content=raw, request=httpx.Request("POST", url)
    )
    return openai.APIStatusError(
        f"Error code: {status} - {message or text}",
        response=response,
        body=detail,  # type: ignore[arg-type]
    )


def _as_litellm_error(model: str, error: Exception) -> Exception:
    """The exception litellm raises for `error` from its openai provider (a 503 is a
    ServiceUnavailableError, a malformed body an APIConnectionError, ...)."""
    import litellm

    try:
        litellm.exception_type(model=model, original_exception=error, custom_llm_provider=PROVIDER)
    except Exception as mapped:  # noqa: BLE001 - exception_type raises its answer
        return mapped
    return error
