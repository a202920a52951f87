"""kill -9 at random points of `sane generate` and `sane execute`, then resume (3 trials).

The same machinery as scripts/kill_trials.py (which runs 20+ trials on the real
console script); here the CLI runs in forked children of this process, so a
trial costs seconds, not an interpreter start-up per run.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from reliability_helpers import KILL_TRIALS
from reliability_helpers import kill_trials as load_kill_trials


@pytest.fixture(scope="module")
def kill_trials():
    return load_kill_trials()


def test_killed_runs_resume_to_the_uninterrupted_result(
    kill_trials, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(kill_trials.FIXTURES))
    results = kill_trials.run_trials(3, seed=7, mode="fork", delay_s=0.01, root=tmp_path)
    figures = kill_trials.summary(results)
    assert figures["passed"] == 3, [vars(t) for t in results]
    assert figures["repeated_fetches"] == 0
    # The kills interrupted real work, not finished processes.
    assert sum(figures["kills_inside_a_run"].values()) >= 4, figures


def test_the_documented_kill_trials_script_passes_as_documented() -> None:
    """The kill/resume figures of docs/reliability.md come from this script in subprocess mode (real
    processes, SIGKILL); one trial of it runs here, through its own command line."""
    import json
    import subprocess

    run = subprocess.run(
        [sys.executable, str(KILL_TRIALS), "--trials", "1", "--seed", "3"],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    figures = json.loads(run.stdout[run.stdout.index("{") :])
    assert figures["mode"] == "subprocess" and figures["passed"] == figures["trials"] == 1
