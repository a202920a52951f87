"""`sane init`: the starter it writes works as its README says, offline, with nothing read
from sane's source; a second init never overwrites a file."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sane.cli import app

runner = CliRunner()


def _offline_commands(readme: str) -> list[list[str]]:
    section = readme.split("## Offline in seconds", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.DOTALL).group(1)
    commands = [shlex.split(line) for line in block.splitlines() if line.strip()]
    assert all(c[0] == "sane" for c in commands)
    return [c[1:] for c in commands]


def test_the_starter_runs_offline_as_its_readme_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["init", "relevance"])
    assert result.exit_code == 0, result.output
    folder = tmp_path / "relevance"
    assert {p.name for p in folder.iterdir()} >= {"spec.yaml", "my_scorers.py", "rules.yaml"}
    monkeypatch.chdir(folder)  # as the README says: run from this folder
    try:
        codes = []
        for args in _offline_commands((folder / "README.md").read_text()):
            step = runner.invoke(app, args)
            codes.append(step.exit_code)
            assert step.exit_code == 0, (args, step.output)
        report = runner.invoke(app, ["report", "suite.db", "--format", "json"])
        assert '"validated_families": 2' in report.stdout
        assert '"overlap"' in report.stdout and '"rouge-l"' in report.stdout
    finally:  # my_scorers.py was imported from the starter's folder
        sys.modules.pop("my_scorers", None)
        if str(folder.resolve()) in sys.path:
            sys.path.remove(str(folder.resolve()))
    assert codes == [0, 0, 0, 0]


def test_a_second_init_overwrites_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    assert runner.invoke(app, ["init", "mine"]).exit_code == 0
    spec = tmp_path / "mine" / "spec.yaml"
    spec.write_text("edited by hand\n")
    again = runner.invoke(app, ["init", "mine"])
    assert again.exit_code == 2 and "already exists" in again.output
    assert spec.read_text() == "edited by hand\n"
    assert runner.invoke(app, ["init", "../bad name"]).exit_code == 2


def test_a_long_path_with_brackets_prints_whole_on_one_line(tmp_path: Path):
    """Where output is not a terminal, rich wraps at 80 columns and reads `[...]` as markup:
    a path printed that way cannot be copied from a log. Paths print as they are."""
    where = tmp_path / "runs [v2]" / ("a-folder-name-long-enough-to-pass-eighty-columns-" * 2)
    result = runner.invoke(app, ["init", "mine", "--dir", str(where)])
    assert result.exit_code == 0, result.output
    assert f"into {where}/: " in result.output.splitlines()[0]
