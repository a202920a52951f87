"""Every command's help, as a user sees it (`python -m sane ... --help` in a subprocess),
names values in words: no Python type name such as <int>, <bool>, <path> or list[str]."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from sane.cli import app
from sane.cli._common import plain_metavars

TYPE_NAME = re.compile(r"<[a-zA-Z_\[\], |]+>|list\[|\b(?:int|float|str|bool) range\b|Question\.")


def _commands() -> list[list[str]]:
    import typer.main

    root = typer.main.get_command(app)
    found: list[list[str]] = [[]]

    def walk(command, path: list[str]) -> None:
        for name, sub in getattr(command, "commands", {}).items():
            found.append([*path, name])
            walk(sub, [*path, name])

    walk(root, [])
    return found


@pytest.mark.parametrize("command", _commands(), ids=lambda c: " ".join(c) or "sane")
def test_help_shows_no_python_type_names(command: list[str]) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "sane", *command, "--help"],
        capture_output=True, text=True, timeout=60, check=False, env={"COLUMNS": "200"},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "Usage: sane" in run.stdout
    assert not TYPE_NAME.search(run.stdout), TYPE_NAME.search(run.stdout)


def test_the_metavars_are_words() -> None:
    import typer.main

    command = typer.main.get_command(app)
    plain_metavars(command)
    check = command.commands["check"]
    metavars = {p.name: p.metavar for p in check.params}
    assert metavars["max_faults"] == "N" and metavars["target"] == "NAME"
    assert metavars["suite"] == "SUITE" and metavars["as_json"] is None


def test_the_llm_options_are_declared_once_and_offered_alike() -> None:
    import typer.main

    from sane.cli._llm_options import OPTIONS

    root = typer.main.get_command(app)
    full = {"generate", "execute", "baseline"}
    for name in full:
        offered = {p.name for p in root.commands[name].params}
        assert set(OPTIONS) <= offered, name
        assert "llm" not in offered
    assert {p.name for p in root.commands["rank"].params} >= {"cache", "script", "api_base"}


def test_bad_llm_option_values_are_bad_input(tmp_path) -> None:
    from typer.testing import CliRunner

    spec = "builtin:faithfulness"
    for args, field in [
        (["--rate-limit", "openai"], "--rate-limit"),
        (["--rate-limit", "openai=-3"], "--rate-limit"),
        (["--router", str(tmp_path / "none.yaml")], "--router"),
        (["--script", str(tmp_path / "none.yaml")], "--script"),
    ]:
        result = CliRunner().invoke(
            app, ["generate", spec, "--suite", str(tmp_path / "s.db"), "--model", "scripted", *args]
        )
        assert result.exit_code == 2 and field in result.stderr, (args, result.output)
        assert not (tmp_path / "s.db").exists()


def test_help_and_a_spec_check_load_no_heavy_library() -> None:
    """`sane --help` and the load check of a spec (every target kind's registry read, as a dry
    run does) must start in well under the 2 CPU-seconds a refusal may take on a slow CPU:
    jinja2, scipy, litellm and rich.progress load where they are used, not at import."""
    probe = (
        "import sys\n"
        "from sane.cli import app\n"
        "try:\n"
        "    app(['--help'], standalone_mode=False)\n"
        "except SystemExit:\n"
        "    pass\n"
        "help_loaded = sorted({'jinja2', 'scipy', 'litellm', 'rich.progress'} & set(sys.modules))\n"
        "from sane.inputs import load_spec\n"
        "load_spec('builtin:faithfulness')\n"
        "check_loaded = sorted({'scipy', 'litellm'} & set(sys.modules))\n"
        "print(help_loaded, check_loaded)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], check=False, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[] []"
