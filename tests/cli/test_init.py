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


def _embedded_commands(readme: str) -> list[list[str]]:
    section = readme.split("## Offline with the embedded model", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.DOTALL).group(1)
    return [shlex.split(line.split("#")[0])[1:] for line in block.splitlines() if line.strip()]


def test_the_pairwise_starter_runs_offline_as_init_and_its_readme_say(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`sane init --pairwise`: the commands it prints, then the README's gate, offline; its
    python target prefers by the contract (symmetric, a tie against itself); the embedded
    model's run estimates without a model loaded."""
    import asyncio

    from sane.inputs import load_examples, load_spec
    from sane.scorers import BuildContext, build_target

    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["init", "--pairwise"])
    assert result.exit_code == 0, result.output
    folder = tmp_path / "my-pairwise-judge"
    printed = " ".join(result.output.split()).split("next, offline in seconds: ", 1)[1]
    chain = [shlex.split(step) for step in printed.split(" (the README")[0].split(" && ")]
    assert chain[0] == ["cd", "my-pairwise-judge"] and all(c[0] == "sane" for c in chain[1:])
    readme = (folder / "README.md").read_text()
    offline = _offline_commands(readme)
    assert [c[1:] for c in chain[1:]] == offline[:3]  # what it prints, the README says
    monkeypatch.chdir(folder)
    try:
        for args in [c[1:] for c in chain[1:]] + offline[3:]:
            step = runner.invoke(app, args)
            assert step.exit_code == 0, (args, step.output)
        report = runner.invoke(app, ["report", "suite.db", "--format", "json"])
        assert '"validated_families": 2' in report.stdout and '"overlap"' in report.stdout
        spec, _ = load_spec("spec.yaml")
        assert spec.comparative and [t.kind for t in spec.targets] == ["pairwise_judge", "python"]
        examples = load_examples(spec, folder / "examples.jsonl")
        assert len(examples) >= 8
        overlap = build_target(spec.targets[1], BuildContext(spec=spec, base_dir=folder))
        for example in examples:
            swapped = example | {"answer_a": example["answer_b"], "answer_b": example["answer_a"]}
            same = example | {"answer_b": example["answer_a"]}
            a, b, tie = (asyncio.run(overlap.score(r)) for r in (example, swapped, same))
            assert -1 <= a <= 1 and b == -a and tie == 0
        capital = asyncio.run(overlap.score(examples[0]))  # Canberra against Sydney
        assert capital > 0
        estimate = runner.invoke(app, _embedded_commands(readme)[0])
        assert estimate.exit_code == 0, estimate.output
        assert "total" in estimate.output and not (folder / "local.db").exists()
    finally:  # my_scorers.py was imported from the starter's folder
        sys.modules.pop("my_scorers", None)
        if str(folder.resolve()) in sys.path:
            sys.path.remove(str(folder.resolve()))


def test_every_starter_file_ships_in_the_package() -> None:
    """A file the starter writes but no package-data pattern names is missing from a wheel,
    and `sane init` fails there only (the READMEs did)."""
    import tomllib
    from fnmatch import fnmatch

    from sane.scaffold import STARTERS

    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    patterns = tomllib.loads(pyproject.read_text())["tool"]["setuptools"]["package-data"]["*"]
    for starter in STARTERS.values():
        for packaged in starter.files.values():
            assert any(fnmatch(packaged, pattern) for pattern in patterns), packaged
