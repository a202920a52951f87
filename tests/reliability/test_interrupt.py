"""Ctrl-C (SIGINT) during `sane execute`: the run stops with exit 130 and one line, the suite
keeps what it had, and a rerun resumes to the uninterrupted result without buying a call twice.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
import typer
from reliability_helpers import kill_trials

from sane.cli._common import EXIT_INTERRUPTED, errors_to_exit_codes


def test_sigint_during_execute_stops_cleanly_and_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kt = kill_trials()
    monkeypatch.syspath_prepend(str(kt.FIXTURES))
    ref, work = tmp_path / "ref", tmp_path / "interrupted"
    for path in (ref, work):
        kt.prepare(path, delay_s=0.15)  # each judge call takes time: the signal lands inside
        assert kt.run(path, "generate", "fork")[0] == 0
    assert kt.run(ref, "execute", "fork")[0] == 0

    process = kt.launch(kt.command(work, "execute"), "fork")
    assert kt.wait_until_working(work, process)
    time.sleep(0.4)
    assert process.is_alive(), "execute ended before the signal: nothing was interrupted"
    os.kill(process.pid, signal.SIGINT)
    assert kt.wait(process) == EXIT_INTERRUPTED
    assert kt.integrity(work / "suite.db") == "ok"

    assert kt.run(work, "execute", "fork")[0] == 0
    assert kt.report_of(work) == kt.report_of(ref)
    assert kt.repeated_fetches(work) == 0


def test_an_interrupt_is_one_line_and_exit_130(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(typer.Exit) as exit_, errors_to_exit_codes():
        raise KeyboardInterrupt
    assert exit_.value.exit_code == EXIT_INTERRUPTED == 130
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "interrupted" in err and "rerun" in err
