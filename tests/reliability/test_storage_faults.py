"""Storage faults: a damaged suite is refused untouched, a full disk is one line, readers never write."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from reliability_helpers import cli, scripted_args

from sane.suites.store import SuiteStore


@pytest.fixture
def suite(tiny: Path) -> Path:
    tmp_path = tiny
    code, _, err = cli(
        "generate", tmp_path / "tiny_spec.yaml", "--suite", tmp_path / "suite.db",
        *scripted_args(tmp_path),
    )  # fmt: skip
    assert code == 0, err
    with sqlite3.connect(tmp_path / "suite.db") as db:  # everything in the main file
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return tmp_path / "suite.db"


def _execute_args(work: Path) -> list[object]:
    return ["--script", work / "tiny_script.yaml", "--cache", work / "cache.db", "--quiet",
            "--trust-suite-code"]  # fmt: skip


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _garble_one_page(path: Path) -> None:
    with sqlite3.connect(path) as db:
        page = db.execute("PRAGMA page_size").fetchone()[0]
        root = db.execute("select rootpage from sqlite_master where name = 'cases'").fetchone()[0]
    data = bytearray(path.read_bytes())
    start = (root - 1) * page
    data[start + 8 : start + page] = b"\xa5" * (page - 8)  # the page header survives, the rest not
    path.write_bytes(bytes(data))


def test_a_damaged_suite_is_refused_before_any_write_and_left_untouched(suite: Path) -> None:
    _garble_one_page(suite)
    before = _digest(suite)
    for argv in (
        ["execute", suite, *_execute_args(suite.parent)],
        [
            "generate",
            suite.parent / "tiny_spec.yaml",
            "--suite",
            suite,
            *scripted_args(suite.parent),
        ],
    ):
        code, out, err = cli(*argv)
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1 and "damaged" in lines[0], err
        assert "Traceback" not in out + err
        assert _digest(suite) == before
    code, out, err = cli("report", suite)  # a reader fails in one line too
    assert code in (1, 2) and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert _digest(suite) == before


def test_a_full_disk_is_one_line_and_a_rerun_completes_the_suite(
    suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reference = suite.with_name("reference.db")
    shutil.copy(suite, reference)
    assert cli("execute", reference, *_execute_args(suite.parent))[0] == 4  # broken: no result
    with sqlite3.connect(suite) as db:
        pages = db.execute("PRAGMA page_count").fetchone()[0]
    original = SuiteStore.__init__

    def small_disk(self: SuiteStore, *args: object, **kwargs: object) -> None:
        original(self, *args, **kwargs)
        if kwargs.get("writer"):  # SQLite's own "database or disk is full", a few pages on
            self.db.execute(f"PRAGMA max_page_count = {pages + 2}")

    monkeypatch.setattr(SuiteStore, "__init__", small_disk)
    code, out, err = cli("execute", suite, *_execute_args(suite.parent))
    lines = err.strip().splitlines()
    assert code == 1 and len(lines) == 1, err
    assert "storage error: database or disk is full" in lines[0] and "Traceback" not in out
    monkeypatch.undo()
    with sqlite3.connect(suite) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    # the space is back: the rerun resumes and ends where an uninterrupted run ends
    assert cli("execute", suite, *_execute_args(suite.parent))[0] == 4
    done, expected = (json.loads(cli("report", p)[1]) for p in (suite, reference))
    assert done["targets"] == expected["targets"] and done["faults"] == expected["faults"]


def test_readers_open_the_suite_read_only(suite: Path) -> None:
    before = _digest(suite)
    store = SuiteStore(suite, readonly=True)
    try:
        assert store.snapshot().spec.name == "tiny-faithfulness"
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            store.db.execute("create table x (a)")
    finally:
        store.close()
    for argv in (["report", suite], ["report", suite, "--format", "md"]):
        assert cli(*argv)[0] == 0
    assert cli("rank", suite)[0] == 4  # never executed: nothing to rank (read, not written)
    assert _digest(suite) == before


def test_a_suite_in_a_folder_it_cannot_write_is_read_immutable(
    suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As root (this test's usual user) a read-only folder is still writable, so the folder's
    permission is what is simulated; checked by hand as an unprivileged user too."""
    import os

    from sane.suites import store as store_module

    real_access = os.access
    folder = suite.parent
    monkeypatch.setattr(
        store_module.os,
        "access",
        lambda path, mode: (
            False if Path(path) == folder and mode == os.W_OK else real_access(path, mode)
        ),
    )
    assert "immutable=1" in store_module._readonly_uri(suite)
    code, out, err = cli("report", suite)
    assert code == 0 and '"validity"' in out, err
