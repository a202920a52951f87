"""The pytest plugin through a real `pytest` process: a gate file beside a suite fails the
build on a limit, passes it within the limits, and a bad gate file is one collection error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from sane import api


def pytest_run(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", str(folder), "-p", "no:cacheprovider", "-rA", "-q",
         "--junitxml", str(folder / "junit.xml")],
        capture_output=True, text=True, timeout=300, cwd=folder, check=False,
    )  # fmt: skip


@pytest.fixture
def gated(suite: Path) -> Path:
    return suite.parent


def test_a_gate_file_fails_the_build_on_a_limit_and_names_each_check(gated: Path) -> None:
    lazy = api.report(gated / "suite.db").targets["lazy"]
    assert lazy.faults > 0
    (gated / "sane_check.yaml").write_text(
        "suite: suite.db\ntargets: [careful, lazy]\nmax_faults: 0\n"
        "min_pass_rate_per_target: {careful: 1.0}\n"
    )
    run = pytest_run(gated)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "PASSED sane_check.yaml::careful::faults" in run.stdout
    assert "PASSED sane_check.yaml::careful::pass rate" in run.stdout
    assert "FAILED sane_check.yaml::lazy::faults" in run.stdout
    assert f"lazy: faults is {lazy.faults}; must be at most 0" in run.stdout
    assert "1 failed, 2 passed" in run.stdout
    assert 'failures="1"' in (gated / "junit.xml").read_text()


def test_within_the_limits_the_build_passes(gated: Path) -> None:
    (gated / "sane_check_ok.yml").write_text(
        "suite: suite.db\ntargets: [careful]\nmax_faults: 0\nmax_control_false_accept: 0.1\n"
    )
    run = pytest_run(gated)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2 passed" in run.stdout


def test_a_target_without_results_fails_as_not_measured(gated: Path) -> None:
    (gated / "sane_check.yaml").write_text("suite: suite.db\ntargets: [broken]\nmax_faults: 5\n")
    run = pytest_run(gated)
    assert run.returncode == 1
    assert "not measured: target broken produced no result" in run.stdout


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("suite: suite.db\nmax_faults: -1\n", "max_faults"),
        ("suite: suite.db\nmax_fault: 0\n", "max_fault"),
        ("suite: missing.db\nmax_faults: 0\n", "suite file not found"),
        ("suite: suite.db\n", "give at least one limit"),
    ],
)
def test_a_bad_gate_file_is_one_collection_error(gated: Path, text: str, message: str) -> None:
    (gated / "sane_check.yaml").write_text(text)
    run = pytest_run(gated)
    assert run.returncode == 2, run.stdout + run.stderr  # pytest: errors during collection
    assert "sane gate:" in run.stdout and message in run.stdout
    assert "Traceback" not in run.stdout
