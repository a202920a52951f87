"""The LLM access options, declared once for every command that calls models.

A command decorated with `@llm_options()` takes one parameter `llm: LLMSettings`; the
decorator (an option group, sane.cli._options) gives the command's signature the options
below instead and builds the settings from them, refusing a bad value as bad input. A
command that offers only some options names them; the others keep `LLMSettings`' defaults
or the values it fixes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sane.cli._options import Option, fields_of, finite_at_least, option_group
from sane.errors import InputError

if TYPE_CHECKING:
    from sane.llm import LLMSettings


OPTIONS: dict[str, Option] = {
    option.name: option
    for option in (
        Option(
            "router",
            "router_path",
            Annotated[
                Path | None,
                typer.Option(
                    help="litellm Router file: deployments of router/NAME models, fallbacks."
                ),
            ],
        ),
        Option(
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
        Option(
            "cache",
            "cache_path",
            Annotated[Path | None, typer.Option(help="LLM cache file (default: user cache dir).")],
        ),
        Option(
            "script",
            "script_path",
            Annotated[
                Path | None, typer.Option(help="Rules file for the `scripted` model (tests, docs).")
            ],
        ),
        Option(
            "api_base",
            "api_base",
            Annotated[
                str | None,
                typer.Option(
                    help="Base URL of an OpenAI-compatible server (openai/NAME models are "
                    "then called on it directly, without litellm)."
                ),
            ],
        ),
        Option(
            "concurrency",
            "concurrency",
            Annotated[int, typer.Option(min=1, help="Concurrent LLM calls.")],
        ),
        Option(
            "max_calls",
            "max_calls",
            Annotated[
                int | None,
                typer.Option(
                    callback=finite_at_least(0), help="Stop after this many uncached LLM calls."
                ),
            ],
        ),
        Option(
            "max_cost",
            "max_cost",
            Annotated[
                float | None,
                typer.Option(
                    callback=finite_at_least(0), help="Stop once this many USD are spent."
                ),
            ],
        ),
        Option(
            "llm_timeout",
            "timeout_s",
            Annotated[
                float | None,
                typer.Option(
                    callback=finite_at_least(1),
                    help="Seconds one LLM call may take once sent (default: 120 for a server, "
                    "900 for an embedded model).",
                ),
            ],
        ),
    )
}


def llm_options(*names: str, **fixed: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give a command the LLM options `names` (default: all) in place of its `llm` parameter;
    `fixed` sets `LLMSettings` fields the command does not offer."""
    from sane.llm import LLMSettings

    return option_group(
        "llm", OPTIONS, names, lambda values: settings_from(values, fixed), LLMSettings
    )


def settings_from(values: dict[str, Any], fixed: dict[str, Any] | None = None) -> LLMSettings:
    """`LLMSettings` from option values (by option name); a bad value is bad input."""
    from sane.llm import LLMSettings

    _check_file(values.get("script"), "--script", exists=True)
    _check_file(values.get("router"), "--router", exists=True)
    _check_file(values.get("cache"), "--cache", exists=False)  # created where absent
    fields = fields_of(OPTIONS, values)
    fields["rate_limits"] = _rate_limits(values.get("rate_limit"))  # PROVIDER=RPM pairs parsed
    return LLMSettings(**{**fields, **(fixed or {})})


def _check_file(path: Path | None, option: str, *, exists: bool) -> None:
    """Refuse a file option that names a folder (a cache there failed later as a storage
    error that blamed the suite) or, where it must exist, nothing."""
    if path is None:
        return
    if path.is_dir():
        raise InputError(str(path), option, "is a folder, not a file")
    if exists and not path.is_file():
        raise InputError(str(path), option, "file not found")


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
