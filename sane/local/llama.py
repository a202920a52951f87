"""Chat with the embedded GGUF instruction models through llama-cpp-python.

This is the offline default behind the `local/<name>` litellm provider: no API
key, no hub, only the verified files from `sane.local.assets`. A model is
loaded once per process (loading Qwen2.5-Coder-1.5B takes seconds, a chat call
far less), and a JSON schema turns into llama.cpp's grammar-constrained
decoding, so a structured answer is valid JSON of the right shape by
construction rather than by hope. llama.cpp contexts are not thread-safe, so
each loaded model has its own lock.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sane.errors import LLMError
from sane.local.assets import resolve

if TYPE_CHECKING:
    from llama_cpp import Llama

log = logging.getLogger(__name__)

PROVIDER_PREFIX = "local/"
N_CTX = 4096
N_BATCH = 512


@dataclass(frozen=True)
class LocalCompletion:
    """One chat answer with its token counts (for the LLM layer's accounting)."""

    text: str
    prompt_tokens: int
    completion_tokens: int


@dataclass
class LoadedModel:
    llm: Llama
    lock: threading.Lock
    load_seconds: float


_loaded: dict[tuple[str, bool], LoadedModel] = {}
_loading = threading.Lock()


def model_name(name: str) -> str:
    """`local/qwen2.5-coder-1.5b` and `qwen2.5-coder-1.5b` name the same model."""
    return name.removeprefix(PROVIDER_PREFIX)


def load(name: str, *, logits_all: bool = False) -> LoadedModel:
    """The process-wide instance of a GGUF model, loaded (and hash-verified) on first use.

    `logits_all` keeps the logits of every position, which the likelihood helper
    needs and chat does not; the two uses get separate instances.
    """
    key = (model_name(name), logits_all)
    with _loading:
        if key not in _loaded:
            from llama_cpp import Llama

            path = resolve(key[0])
            started = time.perf_counter()
            llm = Llama(
                model_path=str(path),
                n_ctx=N_CTX,
                n_batch=N_BATCH,
                n_threads=os.cpu_count() or 1,
                logits_all=logits_all,
                verbose=False,
            )
            seconds = time.perf_counter() - started
            log.info("loaded local model %s in %.1f s", key[0], seconds)
            _loaded[key] = LoadedModel(llm, threading.Lock(), seconds)
        return _loaded[key]


def unload_all() -> None:
    """Close every loaded model (tests use it to force a fresh, verified load).

    Also run at exit: a model left to the interpreter's teardown is freed after
    llama.cpp's own bindings are gone, which prints a spurious traceback.
    """
    with _loading:
        for loaded in _loaded.values():
            loaded.llm.close()
        _loaded.clear()


atexit.register(unload_all)


def _response_format(json_schema: dict[str, Any] | None) -> dict[str, Any] | None:
    if json_schema is None:
        return None
    return {"type": "json_object", "schema": json_schema}


def chat(
    name: str,
    messages: list[dict[str, str]],
    *,
    json_schema: dict[str, Any] | None = None,
    temperature: float = 0.0,
    seed: int = 0,
    max_tokens: int = 512,
) -> LocalCompletion:
    """One chat completion; with `json_schema` the output is constrained to that schema.

    A failure inside llama.cpp (e.g. a prompt longer than the context) is an
    LLMError, never an empty answer.
    """
    model = load(name)
    try:
        with model.lock:
            result = model.llm.create_chat_completion(
                messages=messages,  # type: ignore[arg-type]
                response_format=_response_format(json_schema),  # type: ignore[arg-type]
                temperature=temperature,
                seed=seed,
                max_tokens=max_tokens,
            )
    except (ValueError, RuntimeError) as error:
        raise LLMError(PROVIDER_PREFIX + model_name(name), str(error)) from error
    choice = result["choices"][0]  # type: ignore[index]
    usage = result.get("usage") or {}  # type: ignore[union-attr]
    return LocalCompletion(
        text=choice["message"]["content"] or "",
        prompt_tokens=int(usage.get("prompt_tokens", 0)),
        completion_tokens=int(usage.get("completion_tokens", 0)),
    )
