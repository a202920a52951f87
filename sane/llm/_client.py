"""LLMClient: every model call of the product, cached, retried, limited and recorded.

Callers ask for text or a pydantic object; the client looks the call up in the
SQLite cache (a hit replays exactly and costs nothing), otherwise checks the
budget, waits for a concurrency slot and calls the model (through litellm, or with one
JSON POST to a self-hosted OpenAI-compatible server: sane.llm._openai_http), retrying
transient provider errors with backoff. Every attempt, cached or not, failed or not, is
reported through `on_call` as a CallRecord, and only successful responses are
stored, so a rerun retries what failed. A cached record carries the tokens of
the original response but cost 0.0: nothing was spent this time.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import weakref
from collections.abc import AsyncIterator, Callable
from types import SimpleNamespace
from typing import Any, TypedDict, TypeVar, Unpack

from pydantic import BaseModel

from sane._turns import Turns
from sane.errors import LLMError
from sane.llm import _openai_http, _structured
from sane.llm import _transcripts as transcripts
from sane.llm._budget import Budget, price
from sane.llm._cache import CachedResponse, ResponseCache, call_key
from sane.llm._call_clock import request_timeout, waiting
from sane.llm._formats import FormatLadder, request_format
from sane.llm._litellm import ensure_litellm_ready
from sane.llm._providers import (
    OPENAI_PREFIX,
    CallContext,
    Route,
    enforces_schema,
    resolve_route,
    server_model,
)
from sane.llm._retry import (
    backoff_delay,
    format_refused,
    is_authentication,
    is_timeout,
    is_transient,
)
from sane.llm._router import RateLimits, RouterHolder, load_router
from sane.llm._secrets import redact
from sane.llm._settings import LLMSettings
from sane.llm._slots import RankedSlots, current_rank
from sane.llm._transcripts import Transcript
from sane.records import CallRecord

T = TypeVar("T", bound=BaseModel)

# litellm and the direct path's HTTP session enforce timeout_s themselves; this guards
# providers that do not. A timeout block, not asyncio.wait_for: wait_for runs the call as a
# task of its own, one more hand-off through the event loop on the way in and out.
TIMEOUT_GRACE_S = 5.0
MAX_ERROR_CHARS = 600


class Sampling(TypedDict, total=False):
    """How one call samples, the same for text and structured calls; a field left out (or
    None) is the provider's default. All of them are part of the call's cache key."""

    temperature: float | None
    max_tokens: int | None
    seed: int | None


def _params(sampling: Sampling, response_format: dict[str, Any] | None) -> dict[str, Any]:
    """The request parameters of a call, always the same four keys (the cache key reads them)."""
    unknown = set(sampling) - set(Sampling.__annotations__)
    if unknown:
        raise TypeError(f"unknown sampling parameter(s): {sorted(unknown)}")
    return {
        "temperature": sampling.get("temperature"),
        "max_tokens": sampling.get("max_tokens"),
        "seed": sampling.get("seed"),
        "response_format": response_format,
    }


class _Failed(Exception):
    """An attempt that failed with a message already made safe to store."""


class _FormatRefused(Exception):
    """The server refused the call's response_format (recorded; the caller steps down)."""


class LLMClient:
    """Async access to any litellm model, the scripted model and local models."""

    def __init__(
        self,
        settings: LLMSettings,
        on_call: Callable[[CallRecord], None] | None = None,
        on_transcript: Callable[[Transcript], None] | None = None,
    ) -> None:
        ensure_litellm_ready()
        self._settings = settings
        self._on_call = on_call
        self._on_transcript = on_transcript
        self._transcribed: set[str] = set()
        self._cache = ResponseCache(settings.resolved_cache_path())
        self._budget = Budget(settings.max_calls, settings.max_cost)
        self._slots: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, RankedSlots] = (
            weakref.WeakKeyDictionary()
        )
        self._key_locks: weakref.WeakValueDictionary[str, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )
        self._router = RouterHolder(settings.router_path)
        if settings.router_path is not None:
            load_router(settings.router_path)  # a bad router file is bad input, up front
        self._rate_limits = RateLimits(settings.rate_limits)
        self._serial_turns = Turns()
        self._endpoints = _openai_http.Endpoints()
        self._formats = FormatLadder()
        # each server's own limit (its API base), narrowed when its sent calls time out
        self._servers: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[str, RankedSlots]
        ] = weakref.WeakKeyDictionary()
        self._warmed: set[str] = set()

    # ------------------------------------------------------------------ public

    @property
    def calls_made(self) -> int:
        """Uncached calls started in this client's life (cache replays are free)."""
        return self._budget.calls

    @property
    def cost(self) -> float:
        """USD spent on uncached calls in this client's life."""
        return self._budget.cost

    def close(self) -> None:
        self._cache.close()

    async def aclose(self) -> None:
        """Close the connections this event loop opened (call before the loop ends: a run
        of the workflow does)."""
        await self._endpoints.aclose()

    def serial_key(self, model: str) -> str | None:
        """The resource `model`'s calls queue for when it serves one call at a time (an
        embedded model), else None; a caller with a timeout of its own takes its turn
        on that key first (`sane._turns`)."""
        return resolve_route(model, self._settings, CallContext("serial_key", 0)).serial_key

    async def text(
        self,
        model: str,
        messages: list[dict[str, str]],
        *,
        task: str,
        sample_index: int = 0,
        **sampling: Unpack[Sampling],
    ) -> str:
        params = _params(sampling, response_format=None)
        return await self._complete(model, messages, params, task, sample_index)

    async def structured(
        self,
        model: str,
        messages: list[dict[str, str]],
        schema: type[T],
        *,
        task: str,
        sample_index: int = 0,
        shape_shown: bool = False,
        **sampling: Unpack[Sampling],
    ) -> T:
        """A reply parsed into `schema`, repaired up to `repair_retries` times.

        A repair that gets back the reply it answered has been ignored, and another would
        be too (the same model, the same turn with the same problems), so the repairs stop
        there: an embedded model at temperature 0 repeats itself word for word.

        `shape_shown`: the prompt states the reply's shape itself (a `Return {...}` line),
        so a provider that enforces the schema (sane.llm._providers.enforces_schema) is not
        also shown its text.
        """
        spelled_out = not (shape_shown and enforces_schema(model, self._settings))
        conversation = _structured.with_instruction(messages, schema, spelled_out=spelled_out)
        server = self._server(model)
        problems: list[str] = []
        attempts = 0
        previous: str | None = None  # the reply a repair turn asked to correct
        while attempts <= self._settings.repair_retries:
            async with self._formats.learning(server):
                rung = self._formats.rung(server)
                params = _params(sampling, response_format=request_format(rung, schema))
                try:
                    reply = await self._complete(model, conversation, params, task, sample_index)
                except _FormatRefused:
                    self._formats.refused(server, rung)  # the next rung, for every later call
                    continue
                self._formats.answered(server)
            attempts += 1
            try:
                return _structured.parse(reply, schema)
            except _structured.SchemaInvalid as invalid:
                problems = invalid.problems
            if reply == previous:
                problems = [*problems, "the repair got the same reply back"]
                break
            previous = reply
            conversation = conversation + _structured.repair_turns(reply, problems)
        raise LLMError(
            model, f"schema-invalid output after {attempts} attempts: {'; '.join(problems)}"
        )

    # ----------------------------------------------------------------- private

    def _server(self, model: str) -> str:
        """Who answers `model`'s calls (its API base and the model), for what it accepts."""
        route = resolve_route(model, self._settings, CallContext("structured", 0))
        return f"{route.kwargs.get('api_base') or ''} {model}"

    def _server_slots(self, route: Route) -> RankedSlots | None:
        """The limit of the server at the route's API base (none without one)."""
        base = route.kwargs.get("api_base")
        if base is None:
            return None
        servers = self._servers.setdefault(asyncio.get_running_loop(), {})
        slots = servers.get(base)
        if slots is None:
            slots = servers[base] = RankedSlots(self._settings.concurrency)
        return slots

    @contextlib.asynccontextmanager
    async def _turn(self, route: Route, model: str) -> AsyncIterator[RankedSlots | None]:
        """Everything a call waits for before it is sent, with the clock of the timed call it
        belongs to stopped (sane.llm._call_clock): its server's limit, a concurrency slot,
        an embedded model's turn and its loading. Yields the server's limit."""
        server = self._server_slots(route)
        async with contextlib.AsyncExitStack() as held:
            rank = current_rank()
            if server is not None:
                with waiting(server.queued):
                    await held.enter_async_context(server.hold(rank))
            with waiting(self._queued()):
                await held.enter_async_context(self._slot(rank))
                await held.enter_async_context(self._serial(route))
                if route.warm is not None and model not in self._warmed:
                    await asyncio.to_thread(route.warm)  # a model's loading is no call's time
                    self._warmed.add(model)
            yield server

    def _queued(self) -> int:
        slots = self._slots.get(asyncio.get_running_loop())
        return 0 if slots is None else slots.queued

    def _slot(self, rank: int) -> contextlib.AbstractAsyncContextManager[None]:
        """A concurrency slot, waited for with the call's rank (sane.llm._slots)."""
        loop = asyncio.get_running_loop()
        slots = self._slots.get(loop)
        if slots is None:
            slots = self._slots[loop] = RankedSlots(self._settings.concurrency)
        return slots.hold(rank)

    def _key_lock(self, key: str) -> asyncio.Lock:
        lock = self._key_locks.get(key)
        if lock is None:
            lock = asyncio.Lock()
            self._key_locks[key] = lock
        return lock

    def _emit(self, record: CallRecord) -> None:
        if self._on_call is not None:
            self._on_call(record)

    def _answered(
        self, key: str, model: str, task: str, messages: list[dict[str, str]], text: str
    ) -> str:
        """A successful call's reply, after its transcript is noted (sane.llm._transcripts)
        and handed to ``on_transcript`` once per key in this client's life."""
        transcripts.note(key)
        if self._on_transcript is not None and key not in self._transcribed:
            self._transcribed.add(key)
            self._on_transcript(transcripts.transcript(key, model, task, messages, text))
        return text

    def _safe(self, text: str) -> str:
        """An error text fit to store: every configured secret redacted, the length bounded."""
        return redact(text, self._settings)[:MAX_ERROR_CHARS]

    def _safe_reply(self, response: Any) -> str:
        """A reply's text fit to cache, store and return: every configured secret redacted.
        Some providers and proxies echo what they were sent (the `Authorization` key
        included) in a successful answer too, and an answer is cached, stored in
        transcripts and cases, reported and printed."""
        return redact(_reply_text(response), self._settings)

    async def _complete(
        self,
        model: str,
        messages: list[dict[str, str]],
        params: dict[str, Any],
        task: str,
        sample_index: int,
    ) -> str:
        route = resolve_route(
            model, self._settings, CallContext(task, sample_index, params.get("seed"))
        )
        key_params = {**params, "route": route.key_extra} if route.key_extra else params
        key = call_key(model, messages, key_params, sample_index)
        # One flight per key: identical concurrent requests make one provider call.
        lock = self._key_lock(key)
        with waiting():
            await lock.acquire()
        try:
            started = time.monotonic()
            hit = self._cache.get(key)
            if hit is not None:
                self._emit(
                    CallRecord(
                        key=key,
                        task=task,
                        model=model,
                        sample_index=sample_index,
                        cached=True,
                        prompt_tokens=hit.prompt_tokens,
                        completion_tokens=hit.completion_tokens,
                        cost=0.0,
                        latency_s=time.monotonic() - started,
                    )
                )
                return self._answered(key, model, task, messages, hit.text)
            self._budget.reserve()
            text = await self._call_with_retries(
                key, route, model, messages, params, task, sample_index
            )
            return self._answered(key, model, task, messages, text)
        finally:
            lock.release()

    async def _call_with_retries(
        self,
        key: str,
        route: Route,
        model: str,
        messages: list[dict[str, str]],
        params: dict[str, Any],
        task: str,
        sample_index: int,
    ) -> str:
        attempts = self._settings.provider_retries + 1
        for attempt in range(attempts):
            started = time.monotonic()
            server: RankedSlots | None = None
            sent_under = 0
            try:
                bucket = self._rate_limits.bucket(model)
                if bucket is not None:
                    with waiting():
                        await bucket.acquire()  # waiting for the rate limit holds no slot
                async with self._turn(route, model) as server:
                    sent_under = server.size if server is not None else 0
                    started = time.monotonic()
                    response, cost = await self._acompletion(model, route, messages, params)
                text = self._safe_reply(response)
            except Exception as error:  # noqa: BLE001 - every provider failure is recorded
                message = self._safe(f"{type(error).__name__}: {error}")
                refused = params.get("response_format") is not None and format_refused(error)
                if refused:
                    fmt = params["response_format"].get("type")
                    message = self._safe(f"response_format {fmt} refused: {message}")
                if server is not None and is_timeout(error) and server.narrow(sent_under):
                    message = f"{message} (calls in flight to this server now {server.size})"
                self._emit(
                    CallRecord(
                        key=key,
                        task=task,
                        model=model,
                        sample_index=sample_index,
                        cached=False,
                        latency_s=time.monotonic() - started,
                        error=message,
                    )
                )
                if refused:  # never sent again as it was: the caller asks in another format
                    raise _FormatRefused(message) from None
                # An empty reply (_Failed) is a provider hiccup too: worth another try.
                retry = is_transient(error) or isinstance(error, _Failed)
                if attempt + 1 < attempts and retry:
                    with waiting():
                        await asyncio.sleep(backoff_delay(error, attempt, self._settings.backoff_s))
                    continue
                raise LLMError(
                    model,
                    f"provider error after {attempt + 1} attempt(s): {message}",
                    authentication=is_authentication(error),
                ) from None
            latency = time.monotonic() - started
            entry = CachedResponse(
                key=key,
                model=model,
                task=task,
                sample_index=sample_index,
                text=text,
                prompt_tokens=_usage(response, "prompt_tokens"),
                completion_tokens=_usage(response, "completion_tokens"),
                cost=cost if route.priced else 0.0,
                latency_s=latency,
            )
            self._cache.put(entry)
            self._budget.charge(entry.cost)
            self._emit(
                CallRecord(
                    key=key,
                    task=task,
                    model=model,
                    sample_index=sample_index,
                    cached=False,
                    prompt_tokens=entry.prompt_tokens,
                    completion_tokens=entry.completion_tokens,
                    cost=entry.cost,
                    latency_s=latency,
                )
            )
            return text
        raise AssertionError("unreachable: the retry loop returns or raises")

    def _serial(self, route: Route) -> contextlib.AbstractAsyncContextManager[Any]:
        """Queue serial routes here, so waiting for the model never counts toward a timeout."""
        return self._serial_turns.of(route.serial_key)

    async def _acompletion(
        self, model: str, route: Route, messages: list[dict[str, str]], params: dict[str, Any]
    ) -> tuple[Any, float]:
        """The provider's response and its price, by the route's transport: a function of
        this process (a simulation), a direct POST for a self-hosted OpenAI-compatible server
        (directly, or a router group of them), litellm for everything else."""
        if route.in_process is not None:
            return _in_process_reply(route.in_process(messages)), 0.0
        timeout_s = request_timeout(self._settings.call_timeout_s(route.serial))
        if route.direct:
            return await self._direct(
                route.litellm_model,
                route.kwargs["api_base"],
                route.kwargs.get("api_key"),
                messages,
                params,
                timeout_s,
            )
        if route.via_router:
            group = self._router.direct(model, route.litellm_model)
            if group is not None:
                with group.pick() as server:
                    return await self._direct(
                        f"{OPENAI_PREFIX}/{server.model}",
                        server.base_url,
                        server.api_key,
                        messages,
                        params,
                        timeout_s,
                    )
        kwargs: dict[str, Any] = {
            "model": route.litellm_model,
            "messages": messages,
            "num_retries": 0,
            "max_retries": 0,
            "timeout": timeout_s,
            "drop_params": True,
            **route.kwargs,
        }
        kwargs.update({name: value for name, value in params.items() if value is not None})
        import litellm  # imported and set up by the client's constructor (ensure_litellm_ready)

        complete = litellm.acompletion
        if route.via_router:
            complete = self._router.get(model, route.litellm_model).acompletion
            del kwargs["max_retries"]
        async with asyncio.timeout(timeout_s + TIMEOUT_GRACE_S):
            response = await complete(**kwargs)
        return response, _cost(response)

    async def _direct(
        self,
        model: str,
        base_url: str,
        api_key: str | None,
        messages: list[dict[str, str]],
        params: dict[str, Any],
        timeout_s: float,
    ) -> tuple[Any, float]:
        """One call to an OpenAI-compatible server (`model` is `openai/NAME`)."""
        async with asyncio.timeout(timeout_s + TIMEOUT_GRACE_S):
            response = await self._endpoints.complete(
                server_model(model), base_url, api_key, messages, params, timeout_s
            )
        cost = price(
            model, _usage(response, "prompt_tokens"), _usage(response, "completion_tokens")
        )
        return response, cost or 0.0  # a model litellm has no price for costs nothing


def _in_process_reply(text: str) -> Any:
    """An in-process provider's text in the shape of a completion (no usage: nothing priced)."""
    return SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content=text))])


def _reply_text(response: Any) -> str:
    """The message text of a completion; a missing text is an error, not an empty answer."""
    choice = response.choices[0]
    content = getattr(choice.message, "content", None)
    if content is None:
        reason = getattr(choice, "finish_reason", None)
        raise _Failed(f"the model returned no text (finish_reason={reason})")
    return str(content)


def _usage(response: Any, field: str) -> int:
    usage = getattr(response, "usage", None)
    value = getattr(usage, field, 0) if usage is not None else 0
    return int(value or 0)


def _cost(response: Any) -> float:
    """litellm's price of the call when it knows the model, else 0.

    litellm prices every response as it logs it; that price is reused, because
    pricing again costs about a millisecond a call (more for unknown models).
    """
    hidden = getattr(response, "_hidden_params", None)
    if isinstance(hidden, dict) and "response_cost" in hidden:
        return float(hidden["response_cost"] or 0.0)
    import litellm

    try:
        return float(litellm.completion_cost(completion_response=response) or 0.0)
    except Exception:  # noqa: BLE001 - unknown models have no price
        return 0.0
