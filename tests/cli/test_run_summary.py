"""`sane execute`'s summary says what this run did, then the suite's totals, then the next
command (a second run of a new target used to print only the suite's totals)."""

from __future__ import annotations

from pathlib import Path

from tiny_suite import generate_tiny
from typer.testing import CliRunner

from sane.cli import app
from sane.llm import LLMSettings


def _execute(workdir: Path, *targets: str) -> list[str]:
    args = ["execute", str(workdir / "suite.db"), "--spec", str(workdir / "tiny_spec.yaml"),
            "--script", str(workdir / "tiny_script.yaml"), "--cache", str(workdir / "cache.db"),
            "--quiet"]  # fmt: skip
    for name in targets:
        args += ["--target", name]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return result.stderr.strip().splitlines()


def test_a_second_run_reports_its_own_cases_before_the_totals(
    workdir: Path, settings: LLMSettings
) -> None:
    generate_tiny(workdir, settings)
    first = _execute(workdir, "careful")
    assert first[0].startswith("this run: 3 case executions: 0 faults") and "(careful)" in first[0]
    second = _execute(workdir, "careful", "lazy")
    assert [line for line in second if line.startswith("this run")] == [
        "this run: 3 case executions: 3 faults, 0 errors (lazy)"
    ]  # careful's results were kept, not run again
    assert "the suite, these targets: 6 case executions: 3 faults, 0 errors" in second
    assert second[-1].startswith("next: sane report ")
    again = _execute(workdir, "careful", "lazy")
    assert again[0].startswith("this run: nothing new")
