"""The scripted model: deterministic answers from a rules file, for tests and demos.

`scripted` and `scripted/<anything>` route to a litellm CustomLLM that picks
the first rule matching the call's task, message text and sample index and
answers with its response (or fails with its error). It is a pure function
of the rules file and the request, so it is deterministic and safe under any
number of concurrent calls. `delay_s` (per rule, or for the whole file) makes a
call take that long, so tests can interrupt a run at a random point of its work.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
import time
from pathlib import Path
from typing import Any

import yaml
from litellm import CustomLLM, ModelResponse, Usage
from litellm.llms.custom_llm import CustomLLMError
from pydantic import BaseModel, ConfigDict, Field, model_validator

from sane.llm._providers import (
    CallContext,
    Route,
    register_custom_provider,
    register_route,
)
from sane.llm._settings import LLMSettings

PROVIDER = "scripted"
DEFAULT_ERROR_STATUS = 400  # a scripted error repeats on retry, so by default it is permanent


class ScriptRule(BaseModel):
    """One rule: conditions (all optional) and either a response or an error."""

    model_config = ConfigDict(extra="forbid")

    task: str | None = None
    contains: str | list[str] | None = None
    sample: int | None = None
    response: Any = None
    error: str | None = None
    status: int = DEFAULT_ERROR_STATUS
    delay_s: float | None = Field(default=None, ge=0.0)

    @model_validator(mode="after")
    def _one_outcome(self) -> ScriptRule:
        has_response = "response" in self.model_fields_set
        if has_response == (self.error is not None):
            raise ValueError("a rule needs exactly one of 'response' or 'error'")
        return self

    def matches(self, task: str, text: str, sample_index: int) -> bool:
        if self.task is not None and self.task != task:
            return False
        if self.sample is not None and self.sample != sample_index:
            return False
        needles = [self.contains] if isinstance(self.contains, str) else self.contains or []
        return all(needle in text for needle in needles)


class Script(BaseModel):
    """A rules file: first matching rule wins; `default` answers when none matches."""

    model_config = ConfigDict(extra="forbid")

    rules: list[ScriptRule] = Field(default_factory=list)
    default: Any = None
    delay_s: float = Field(default=0.0, ge=0.0)


def render_response(response: Any) -> str:
    """Strings verbatim; anything else (dict, list, number) as JSON text."""
    return response if isinstance(response, str) else json.dumps(response, ensure_ascii=False)


_scripts: dict[tuple[str, int, int], tuple[str, Script | Exception]] = {}
_scripts_lock = threading.Lock()


def _load(path: Path) -> tuple[str, Script | Exception]:
    """(sha256 of the file, parsed script or the parse error), reloaded when the file changes."""
    stat = path.stat()
    cache_key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    with _scripts_lock:
        loaded = _scripts.get(cache_key)
        if loaded is None:
            raw = path.read_bytes()
            parsed: Script | Exception
            try:
                parsed = Script.model_validate(yaml.safe_load(raw.decode("utf-8")) or {})
            except Exception as exc:  # noqa: BLE001 - reported when a call uses the script
                parsed = exc
            loaded = _scripts[cache_key] = (hashlib.sha256(raw).hexdigest(), parsed)
    return loaded


def script_digest(path: Path | None) -> str:
    """A fingerprint of the rules file, so editing it invalidates cached answers."""
    if path is None:
        return ""
    try:
        return _load(path)[0]
    except OSError:
        return ""


def load_script(path: Path) -> Script:
    """The parsed rules file, or CustomLLMError naming the file and the problem."""
    try:
        _, parsed = _load(path)
    except OSError as exc:
        raise CustomLLMError(400, f"scripted model: cannot read rules file {path}: {exc}") from exc
    if isinstance(parsed, Exception):
        raise CustomLLMError(400, f"scripted model: bad rules file {path}: {parsed}")
    return parsed


def _rule(
    script: Script, task: str, messages: list[dict[str, Any]], sample_index: int
) -> ScriptRule | None:
    text = "\n".join(str(m.get("content") or "") for m in messages)
    return next((r for r in script.rules if r.matches(task, text, sample_index)), None)


def delay_s(script: Script, task: str, messages: list[dict[str, Any]], sample_index: int) -> float:
    """How long the call takes: the matching rule's delay, else the file's."""
    rule = _rule(script, task, messages, sample_index)
    return rule.delay_s if rule is not None and rule.delay_s is not None else script.delay_s


def answer(script: Script, task: str, messages: list[dict[str, Any]], sample_index: int) -> str:
    """The scripted reply, or CustomLLMError for an error rule or no match."""
    rule = _rule(script, task, messages, sample_index)
    if rule is not None:
        if rule.error is not None:
            raise CustomLLMError(rule.status, f"scripted error: {rule.error}")
        return render_response(rule.response)
    if script.default is not None:
        return render_response(script.default)
    raise CustomLLMError(
        400, f"scripted model: no rule matches task '{task}' (sample {sample_index})"
    )


class ScriptedLLM(CustomLLM):
    """litellm handler for provider 'scripted'; reads task, sample and script from metadata."""

    def _reply(
        self, messages: list, model_response: ModelResponse, litellm_params: dict | None
    ) -> ModelResponse:
        meta = (litellm_params or {}).get("metadata") or {}
        script_path = meta.get("script_path")
        if not script_path:
            raise CustomLLMError(400, "scripted model: LLMSettings.script_path is not set")
        script = load_script(Path(script_path))
        text = answer(script, str(meta.get("task", "")), messages, int(meta.get("sample_index", 0)))
        prompt_tokens = sum(len(str(m.get("content") or "").split()) for m in messages)
        completion_tokens = len(text.split())
        model_response.choices[0].message.content = text  # type: ignore[union-attr]
        model_response.usage = Usage(  # type: ignore[attr-defined]
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            total_tokens=prompt_tokens + completion_tokens,
        )
        return model_response

    @staticmethod
    def _delay(messages: list, litellm_params: dict | None) -> float:
        meta = (litellm_params or {}).get("metadata") or {}
        if not meta.get("script_path"):
            return 0.0
        script = load_script(Path(meta["script_path"]))
        return delay_s(
            script, str(meta.get("task", "")), messages, int(meta.get("sample_index", 0))
        )

    def completion(self, model: str, messages: list, **kwargs: Any) -> ModelResponse:
        time.sleep(self._delay(messages, kwargs.get("litellm_params")))
        return self._reply(messages, kwargs["model_response"], kwargs.get("litellm_params"))

    async def acompletion(self, model: str, messages: list, **kwargs: Any) -> ModelResponse:
        await asyncio.sleep(self._delay(messages, kwargs.get("litellm_params")))
        return self._reply(messages, kwargs["model_response"], kwargs.get("litellm_params"))


@register_custom_provider(PROVIDER)
def _make_handler() -> ScriptedLLM:
    return ScriptedLLM()


@register_route(PROVIDER)
def scripted_route(model: str, settings: LLMSettings, ctx: CallContext) -> Route:
    """`scripted` alone becomes `scripted/default` (litellm needs a model after the slash)."""
    name = model.split("/", 1)[1] if "/" in model else "default"
    metadata = {
        "task": ctx.task,
        "sample_index": ctx.sample_index,
        "script_path": str(settings.script_path) if settings.script_path else None,
    }
    key_extra = {"task": ctx.task, "script": script_digest(settings.script_path)}
    return Route(f"{PROVIDER}/{name}", {"metadata": metadata}, priced=False, key_extra=key_extra)
