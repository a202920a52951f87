"""`sane check`: exit codes per threshold on the executed tiny suite, and its summary.

The suite (tests/fixtures/tiny_script.yaml): careful 0 faults, lazy 3 faults (all
monotonicity), broken 0 faults and 3 errors.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from sane.cli import app


def check(suite: Path, *args: str):
    return CliRunner().invoke(app, ["check", str(suite), *args])


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["--max-faults", "3"], 0),  # lazy has exactly 3: the limit is inclusive
        (["--max-faults", "2"], 1),
        (["--max-faults", "0", "--target", "careful"], 0),
        (["--max-faults", "0", "--target", "careful", "--target", "lazy"], 1),
        (["--max-faults-per-requirement", "monotonicity=3"], 0),
        (["--max-faults-per-requirement", "monotonicity=2"], 1),
        (["--max-faults-per-requirement", "robustness=0"], 0),  # no robustness case ran
        (["--max-errors", "3"], 0),
        (["--max-errors", "2"], 1),
        (["--max-faults", "5", "--max-errors", "2"], 1),  # any limit failing fails the gate
    ],
)
def test_exit_codes_per_threshold(suite: Path, args: list[str], code: int) -> None:
    result = check(suite, *args)
    assert result.exit_code == code, result.output


def test_summary_names_the_failing_target_and_limit(suite: Path) -> None:
    result = check(suite, "--max-faults", "2", "--max-faults-per-requirement", "monotonicity=1")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("## sane check: tiny-faithfulness") and "FAILED" in lines[0]
    assert "| lazy | faults | 3 | 2 | **FAIL** |" in lines
    assert "| lazy | faults[monotonicity] | 3 | 1 | **FAIL** |" in lines
    assert "| careful | faults | 0 | 2 | pass |" in lines
    assert "| broken | faults | 0 | 2 | pass |" in lines
    assert "2 limit(s) exceeded or unmet." in result.stdout


def test_passing_summary(suite: Path) -> None:
    result = check(suite, "--max-faults", "10", "--max-errors", "10")
    assert result.exit_code == 0
    assert "PASSED" in result.stdout.splitlines()[0]
    assert "FAIL" not in result.stdout


def test_unknown_target_has_no_results_and_fails(suite: Path) -> None:
    result = check(suite, "--max-faults", "10", "--target", "nobody")
    assert result.exit_code == 1
    assert "target nobody has no results in this suite" in result.stdout


def test_unexecuted_suite_fails_the_gate(tmp_path: Path) -> None:
    from suite_builder import build_tiny_suite

    suite = build_tiny_suite(tmp_path, execute=False)
    result = check(suite, "--max-faults", "100")
    assert result.exit_code == 1
    # the spec declares three targets and none has a result
    for name in ("careful", "lazy", "broken"):
        assert f"target {name} has no results in this suite" in result.stdout


@pytest.mark.parametrize(
    "args",
    [
        [],  # no limit at all
        ["--max-faults-per-requirement", "fluency=1"],
        ["--max-faults-per-requirement", "monotonicity"],
        ["--max-faults-per-requirement", "monotonicity=x"],
        ["--max-faults-per-requirement", "monotonicity=-1"],
        ["--max-faults", "-1"],
    ],
)
def test_bad_limits_are_bad_input(suite: Path, args: list[str]) -> None:
    result = check(suite, *args)
    assert result.exit_code == 2, result.output


def test_missing_suite_is_bad_input(tmp_path: Path) -> None:
    result = check(tmp_path / "nope.db", "--max-faults", "1")
    assert result.exit_code == 2
    assert "suite file not found" in result.stderr
