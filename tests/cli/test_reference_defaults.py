"""The defaults docs/reference.md shows in its command synopsis are the command line's own,
which the option groups read from the models (RunConfig, ExecuteConfig, LLMSettings,
DemoPlan): a default changed in a model and not in the docs fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer.main

from sane.cli import app

REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "reference.md"
SHOWN = re.compile(r"\[--([a-z-]+) ([0-9][0-9.]*)\]")


def _synopsis() -> dict[str, dict[str, str]]:
    """command -> {option: the default shown} from the reference's first code block."""
    block = REFERENCE.read_text(encoding="utf-8").split("```", 2)[1]
    shown: dict[str, dict[str, str]] = {}
    command = ""
    for line in block.splitlines():
        match = re.match(r"sane (\w+)", line)
        if match:
            command = match.group(1)
        for option, value in SHOWN.findall(line):
            shown.setdefault(command, {})[option] = value
    return shown


SHOWN_DEFAULTS = _synopsis()


def test_the_synopsis_shows_defaults_to_check() -> None:
    """The control: the reader finds the defaults it is meant to check."""
    assert SHOWN_DEFAULTS["generate"]["votes"] == "3"
    assert {"generate", "execute"} <= set(SHOWN_DEFAULTS)


@pytest.mark.parametrize(
    ("command", "option"),
    [(c, o) for c, options in sorted(SHOWN_DEFAULTS.items()) for o in sorted(options)],
)
def test_a_default_in_the_reference_is_the_commands_own(command: str, option: str) -> None:
    click_command = typer.main.get_command(app).commands[command]
    params = {f"--{p.name.replace('_', '-')}": p for p in click_command.params}
    for param in click_command.params:
        params.update({name: param for name in getattr(param, "opts", [])})
    default = params[f"--{option}"].default
    assert float(SHOWN_DEFAULTS[command][option]) == float(default), (command, option, default)
