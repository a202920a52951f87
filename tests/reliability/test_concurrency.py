"""Two processes on one suite file: the second writer is refused, readers are served,
and the file stays intact.

Process A is a forked child running `sane generate`; this test process is the
second one, invoking the same CLI while A holds the suite.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from reliability_helpers import cli, integrity, kill_trials


def test_second_writer_is_refused_and_the_file_stays_intact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kt = kill_trials()
    monkeypatch.syspath_prepend(str(kt.FIXTURES))
    import sane.cli  # noqa: F401 - the forked child starts with everything imported

    kt.prepare(tmp_path, delay_s=0.05)
    suite = tmp_path / "suite.db"
    first = kt.launch(kt.command(tmp_path, "generate"), "fork")
    try:
        deadline = time.monotonic() + 20
        while not suite.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.3)  # A is now inside its stages
        assert first.is_alive(), "the first run finished before the second could start"
        for which in ("generate", "execute"):
            code, _, err = cli(*kt.command(tmp_path, which))
            assert code == 2, err
            assert "another sane run is writing this suite" in err and "suite.db" in err
        code, out, err = cli("report", suite)  # a reader is served during the run (WAL)
        assert code == 0, err
        assert '"validity"' in out
    finally:
        assert kt.wait(first) == 0
    assert integrity(suite) == "ok"
    # The refused runs left nothing behind; a later run on the finished suite works.
    code, _, err = cli(*kt.command(tmp_path, "generate"))
    assert code == 0, err
