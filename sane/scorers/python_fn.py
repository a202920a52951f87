"""The `python` target: a user function `module:function` that scores a record.

The function receives the record dict (the spec's fields) and returns a number;
it may be sync or async. Sync functions run in a daemon thread so a hanging one
can be timed out by the executor instead of freezing the event loop, and cannot
keep the process alive after the run ends (asyncio's default executor would). Whether
its output is a usable number is the executor's check, not this adapter's.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import inspect
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sane.errors import InputError
from sane.records import OutputContract, TargetConfig
from sane.scorers.base import BuildContext, Target, register_kind


def resolve_ref(ref: str | None, field: str) -> Callable[..., Any]:
    """Import `module:function`; every failure is bad input naming `field`."""
    if not ref:
        raise InputError("spec", field, "a python target needs ref: 'module:function'")
    module_name, sep, attr = ref.partition(":")
    if not sep or not module_name or not attr:
        raise InputError("spec", field, f"'{ref}' is not of the form 'module:function'")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # ImportError or an error raised while importing
        raise InputError(
            "spec", field, f"cannot import module '{module_name}': {type(exc).__name__}: {exc}"
        ) from exc
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise InputError("spec", field, f"module '{module_name}' has no attribute '{attr}'")
        obj = getattr(obj, part)
    if not callable(obj):
        raise InputError("spec", field, f"'{ref}' is not callable")
    return obj


def module_sha256(ref: str) -> str | None:
    """The SHA-256 of the file that defines a `module:function` ref (None for a module without
    a source file): a suite records it so that an edited function is seen as a new definition."""
    module = importlib.import_module(ref.partition(":")[0])
    path = getattr(module, "__file__", None)
    if not path:
        return None
    try:
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError:
        return None


@dataclass
class PythonTarget:
    """A user-supplied scoring function."""

    name: str
    function: Callable[..., Any]
    contract: OutputContract
    fields: tuple[str, ...]
    deterministic: bool = False

    async def score(self, record: dict[str, str], repeat: int = 0) -> float:
        try:
            if inspect.iscoroutinefunction(self.function):
                return await self.function(dict(record))
            result = await _in_daemon_thread(self.function, dict(record))
            if inspect.isawaitable(result):
                result = await result
            return result
        except (KeyboardInterrupt, SystemExit) as exc:
            raise _contained(exc) from None


def _contained(exc: BaseException) -> RuntimeError:
    """User code that raises SystemExit or KeyboardInterrupt has failed to score; asyncio would
    let either escape the event loop and end (or hang) the whole run, so it becomes an error."""
    return RuntimeError(f"{type(exc).__name__} raised by the scoring function: {exc}")


async def _in_daemon_thread(function: Callable[..., Any], *args: Any) -> Any:
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(outcome: Callable[[], None]) -> None:
        if not future.done():
            outcome()

    def deliver(outcome: Callable[[], None]) -> None:
        try:
            loop.call_soon_threadsafe(settle, outcome)
        except RuntimeError:  # the run ended (a timed-out call finishing late)
            pass

    def run() -> None:
        try:
            value = function(*args)
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting task
            error = _contained(exc) if isinstance(exc, KeyboardInterrupt | SystemExit) else exc
            deliver(lambda: future.set_exception(error))
        else:
            deliver(lambda: future.set_result(value))

    threading.Thread(target=run, daemon=True, name="sane-python-target").start()
    return await future


@register_kind("python")
def build_python_target(config: TargetConfig, context: BuildContext) -> Target:
    function = resolve_ref(config.ref, f"targets.{config.name}.ref")
    deterministic = (config.model_extra or {}).get("deterministic", False)
    if not isinstance(deterministic, bool):
        raise InputError("spec", f"targets.{config.name}.deterministic", "must be true or false")
    return PythonTarget(
        name=config.name,
        function=function,
        contract=config.output or context.spec.output,
        fields=tuple(context.spec.fields),
        deterministic=deterministic,
    )
