"""The `local/<name>` provider: embedded offline models behind litellm.

The model itself lives in `sane.local.llama` (imported lazily: it loads heavy
native code and may be absent). Its `chat` function is synchronous and the
machine runs one model at a time, so calls run in a worker thread under a
process-wide lock. Each call samples with a seed of its own (`call_seed`), so
repeated votes differ while a rerun stays identical.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import importlib
import json
import threading
import time
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from litellm import CustomLLM, ModelResponse, Usage

from sane.errors import LLMError
from sane.llm._providers import (
    CallContext,
    Route,
    register_custom_provider,
    register_route,
)
from sane.llm._settings import LLMSettings

PROVIDER = "local"
LLAMA_MODULE = "sane.local.llama"
DEFAULT_TEMPERATURE = 0.7  # votes need sampling to differ; the seed keeps them reproducible
DEFAULT_MAX_TOKENS = 1024

_model_lock = threading.Lock()


@dataclass
class TaskUsage:
    """What the embedded models spent on one kind of call (benchmarks read it)."""

    calls: int = 0
    cpu_s: float = 0.0
    wall_s: float = 0.0
    prompt_tokens: int = 0
    reused_tokens: int = 0
    completion_tokens: int = 0
    prefill_s: float = 0.0
    generate_s: float = 0.0


usage_by_task: defaultdict[str, TaskUsage] = defaultdict(TaskUsage)


def _json_schema(response_format: Any) -> dict | None:
    """The JSON schema inside an OpenAI-style response_format, if one was sent."""
    if not isinstance(response_format, dict):
        return None
    if response_format.get("type") != "json_schema":
        return None
    spec = response_format.get("json_schema") or {}
    schema = spec.get("schema")
    return schema if isinstance(schema, dict) else None


def call_seed(run_seed: int, sample_index: int, messages: list[dict[str, str]]) -> int:
    """The sampling seed of one call: the run's seed, the vote's sample index and the prompt.

    The prompt is part of it so that calls on different questions draw independently:
    from the run seed and sample index alone, every decision's second vote drew the same
    random number, so one question's votes were tied to every other's. A rerun draws the
    same. Below 2**32 - 1, which llama.cpp reads as "seed at random".
    """
    key = json.dumps([run_seed, sample_index, messages], sort_keys=True).encode("utf-8")
    return int.from_bytes(hashlib.sha256(key).digest()[:4], "little") % 0xFFFFFFFF


def _run_locked(name: str, messages: list[dict[str, str]], task: str, **kwargs: Any) -> Any:
    chat = importlib.import_module(LLAMA_MODULE).chat
    with _model_lock:
        cpu, wall = time.process_time(), time.perf_counter()
        result = chat(name, messages, **kwargs)
        usage = usage_by_task[task]
        usage.calls += 1
        usage.cpu_s += time.process_time() - cpu
        usage.wall_s += time.perf_counter() - wall
        usage.prompt_tokens += result.prompt_tokens
        usage.reused_tokens += result.reused_tokens
        usage.completion_tokens += result.completion_tokens
        usage.prefill_s += result.prefill_s
        usage.generate_s += result.generate_s
        return result


class LocalLLM(CustomLLM):
    """litellm handler for provider 'local'."""

    async def acompletion(self, model: str, messages: list, **kwargs: Any) -> ModelResponse:
        model_response: ModelResponse = kwargs["model_response"]
        optional_params: dict[str, Any] = kwargs.get("optional_params") or {}
        litellm_params: dict[str, Any] = kwargs.get("litellm_params") or {}
        meta = litellm_params.get("metadata") or {}
        temperature = optional_params.get("temperature")
        max_tokens = optional_params.get("max_tokens")
        plain_messages = [
            {"role": str(m.get("role", "user")), "content": str(m.get("content") or "")}
            for m in messages
        ]
        result = await asyncio.to_thread(
            _run_locked,
            model,
            plain_messages,
            str(meta.get("task") or "other"),
            json_schema=_json_schema(optional_params.get("response_format")),
            temperature=DEFAULT_TEMPERATURE if temperature is None else float(temperature),
            seed=call_seed(
                int(meta.get("seed") or 0), int(meta.get("sample_index", 0)), plain_messages
            ),
            max_tokens=DEFAULT_MAX_TOKENS if max_tokens is None else int(max_tokens),
        )
        model_response.choices[0].message.content = result.text  # type: ignore[union-attr]
        model_response.usage = Usage(  # type: ignore[attr-defined]
            prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens,
            total_tokens=result.prompt_tokens + result.completion_tokens,
        )
        return model_response


@register_custom_provider(PROVIDER)
def _make_handler() -> LocalLLM:
    return LocalLLM()


@register_route(PROVIDER)
def local_route(model: str, settings: LLMSettings, ctx: CallContext) -> Route:
    if "/" not in model or not model.split("/", 1)[1]:
        raise LLMError(model, "a local model needs a name: local/<name>")
    metadata = {"task": ctx.task, "sample_index": ctx.sample_index, "seed": ctx.seed}
    # the JSON schema becomes llama.cpp's grammar (sane.local.llama): every reply holds to it
    return Route(
        model,
        {"metadata": metadata},
        priced=False,
        serial=True,
        enforces_schema=True,
        warm=functools.partial(_load, model.split("/", 1)[1]),
    )


def _load(name: str) -> None:
    """Load the model (verified; once per process) before its first call is timed."""
    importlib.import_module(LLAMA_MODULE).load(name)
