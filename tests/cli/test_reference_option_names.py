"""docs/reference.md names only options the commands have (issue 55, item 6: it named
`--max-capabilities/--recipes-per-capability`, where the CLI has `--capabilities/--recipes`)."""

from __future__ import annotations

import re
from pathlib import Path

import typer

from sane.cli import app

REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "reference.md"


def _options(command: str) -> set[str]:
    click_command = typer.main.get_command(app).commands[command]  # type: ignore[attr-defined]
    return {opt for param in click_command.params for opt in (*param.opts, *param.secondary_opts)}


def test_every_option_of_a_sane_generate_command_in_the_reference_exists():
    text = " ".join(REFERENCE.read_text().split())  # a command may wrap over lines
    commands = re.findall(r"`sane generate ([^`]*)`", text)
    assert commands
    known = _options("generate")
    named = {o for c in commands for o in re.findall(r"(?<![\w-])--[a-z][a-z-]*", c)}
    assert named - known == set()
