"""Option groups: a set of command-line options declared once, built into one object.

A command takes one parameter for the object (`llm: LLMSettings`, `run: RunConfig`);
the group's decorator gives the command's signature the group's options instead (so
Typer shows and parses them), builds the object from their values and passes it in,
refusing a bad value as bad input. A command that offers only some options of a group
names them; the others keep their defaults or the values the command fixes.

An option's default is its field's default in the group's model (`RunConfig`,
`ExecuteConfig`, `LLMSettings`): declared once, in the model, and shown by `--help`. An
option says its own default only where the command line means something else (a list
option's "none given" is `None`, not the model's empty list).
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import typer
from pydantic import BaseModel

from sane.errors import InputError

Build = Callable[[dict[str, Any]], Any]
FIELD_DEFAULT: Any = object()  # the option's default is its field's default in the model
REQUIRED: Any = inspect.Parameter.empty


@dataclass(frozen=True)
class Option:
    """One command-line option (its parameter name) and the field of the object it fills;
    an option whose field has no default (or that says REQUIRED) is required."""

    name: str
    field: str
    annotation: Any
    default: Any = FIELD_DEFAULT


def default_of(option: Option, model: type[BaseModel]) -> Any:
    """The option's default: its own where it says one, else its field's in `model`."""
    if option.default is not FIELD_DEFAULT:
        return option.default
    field = model.model_fields[option.field]
    return REQUIRED if field.is_required() else field.get_default(call_default_factory=True)


def option_group(
    parameter: str,
    options: dict[str, Option],
    names: tuple[str, ...],
    build: Build,
    model: type[BaseModel],
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A decorator replacing the command's `parameter` by the options `names` (default:
    all of `options`), and passing `build(values by option name)` in its place."""
    unknown = [name for name in names if name not in options]
    if unknown:
        raise KeyError(f"unknown option(s) {unknown} for `{parameter}`")
    chosen = [options[name] for name in names or options]

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        signature = inspect.signature(command, eval_str=True)
        own = [p for p in signature.parameters.values() if p.name != parameter]
        added = [
            inspect.Parameter(
                o.name,
                inspect.Parameter.KEYWORD_ONLY,
                default=default_of(o, model),
                annotation=o.annotation,
            )
            for o in chosen
        ]

        @functools.wraps(command)
        def wrapper(**kwargs: Any) -> Any:
            from sane.cli._common import errors_to_exit_codes

            values = {o.name: kwargs.pop(o.name) for o in chosen}
            with errors_to_exit_codes():
                built = build(values)
            return command(**kwargs, **{parameter: built})

        parameters = own + added
        wrapper.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
        wrapper.__annotations__ = {p.name: p.annotation for p in parameters}
        return wrapper

    return decorate


def fields_of(options: dict[str, Option], values: dict[str, Any]) -> dict[str, Any]:
    """Option values keyed by the fields they fill."""
    return {options[name].field: value for name, value in values.items()}


def finite_at_least(minimum: float) -> Callable[..., Any]:
    """An option callback (`typer.Option(callback=finite_at_least(0))`) refusing a value that
    is not a finite number >= `minimum`: click's ranges let `inf` through (`--interval inf`
    then overflowed) and report a bad value in four lines of usage, while a bad option is
    bad input like any other, refused in one line naming it before anything runs."""

    def check(ctx: typer.Context, param: typer.CallbackParam, value: Any) -> Any:
        if value is None or (math.isfinite(value) and value >= minimum):
            return value
        from sane.cli._common import refused

        option = param.opts[0] if param.opts else str(param.name)
        problem = f"must be a finite number >= {minimum:g}, got {value}"
        raise refused(InputError(None, option, problem))

    return check
