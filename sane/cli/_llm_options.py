"""The LLM access options, declared once for every command that calls models.

A command decorated with `@llm_options()` takes one parameter `llm: LLMSettings`; the
decorator gives the command's signature the options below instead (so Typer shows and
parses them) and builds the settings from them, refusing a bad value as bad input. A
command that offers only some options names them; the others keep `LLMSettings`' defaults
or the values it fixes.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sane.errors import InputError

if TYPE_CHECKING:
    from sane.llm import LLMSettings


@dataclass(frozen=True)
class LLMOption:
    """One command-line option and the `LLMSettings` field it fills."""

    name: str
    field: str
    annotation: Any
    default: Any


OPTIONS: dict[str, LLMOption] = {
    option.name: option
    for option in (
        LLMOption(
            "router",
            "router_path",
            Annotated[
                Path | None,
                typer.Option(
                    help="litellm Router file: deployments of router/NAME models, fallbacks."
                ),
            ],
            None,
        ),
        LLMOption(
            "rate_limit",
            "rate_limits",
            Annotated[
                list[str] | None,
                typer.Option(
                    metavar="PROVIDER=RPM",
                    help="PROVIDER=RPM request limit per minute (e.g. openai=500); repeatable.",
                ),
            ],
            None,
        ),
        LLMOption(
            "cache",
            "cache_path",
            Annotated[Path | None, typer.Option(help="LLM cache file (default: user cache dir).")],
            None,
        ),
        LLMOption(
            "script",
            "script_path",
            Annotated[
                Path | None, typer.Option(help="Rules file for the `scripted` model (tests, docs).")
            ],
            None,
        ),
        LLMOption(
            "api_base",
            "api_base",
            Annotated[str | None, typer.Option(help="Base URL of an OpenAI-compatible server.")],
            None,
        ),
        LLMOption(
            "concurrency",
            "concurrency",
            Annotated[int, typer.Option(min=1, help="Concurrent LLM calls.")],
            8,
        ),
        LLMOption(
            "max_calls",
            "max_calls",
            Annotated[int | None, typer.Option(help="Stop after this many uncached LLM calls.")],
            None,
        ),
        LLMOption(
            "max_cost",
            "max_cost",
            Annotated[float | None, typer.Option(help="Stop once this many USD are spent.")],
            None,
        ),
        LLMOption(
            "llm_timeout",
            "timeout_s",
            Annotated[
                float, typer.Option(min=1, help="Seconds one LLM call may take once it runs.")
            ],
            120.0,
        ),
    )
}


def llm_options(*names: str, **fixed: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give a command the LLM options `names` (default: all) in place of its `llm` parameter;
    `fixed` sets `LLMSettings` fields the command does not offer."""
    chosen = [OPTIONS[name] for name in names or OPTIONS]

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        signature = inspect.signature(command, eval_str=True)
        own = [p for p in signature.parameters.values() if p.name != "llm"]
        added = [
            inspect.Parameter(
                o.name, inspect.Parameter.KEYWORD_ONLY, default=o.default, annotation=o.annotation
            )
            for o in chosen
        ]

        @functools.wraps(command)
        def wrapper(**kwargs: Any) -> Any:
            from sane.cli._common import errors_to_exit_codes

            values = {o.name: kwargs.pop(o.name) for o in chosen}
            with errors_to_exit_codes():
                settings = settings_from(values, fixed)
            return command(**kwargs, llm=settings)

        parameters = own + added
        wrapper.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
        wrapper.__annotations__ = {p.name: p.annotation for p in parameters}
        return wrapper

    return decorate


def settings_from(values: dict[str, Any], fixed: dict[str, Any] | None = None) -> LLMSettings:
    """`LLMSettings` from option values (by option name); a bad value is bad input."""
    from sane.llm import LLMSettings

    script, router = values.get("script"), values.get("router")
    if script is not None and not script.is_file():
        raise InputError(str(script), "--script", "file not found")
    if router is not None and not router.is_file():
        raise InputError(str(router), "--router", "file not found")
    fields = {OPTIONS[name].field: value for name, value in values.items() if name != "rate_limit"}
    fields["rate_limits"] = _rate_limits(values.get("rate_limit"))  # PROVIDER=RPM pairs parsed
    return LLMSettings(**{**fields, **(fixed or {})})


def _rate_limits(items: list[str] | None) -> dict[str, float]:
    """PROVIDER=RPM pairs; each RPM a positive number."""
    limits: dict[str, float] = {}
    for item in items or []:
        provider, _, rpm = item.partition("=")
        try:
            limits[provider.strip()] = float(rpm)
        except ValueError:
            raise InputError(None, "--rate-limit", f"expected PROVIDER=RPM, got {item!r}") from None
        if not provider.strip() or not limits[provider.strip()] > 0:
            raise InputError(None, "--rate-limit", f"expected PROVIDER=RPM > 0, got {item!r}")
    return limits
