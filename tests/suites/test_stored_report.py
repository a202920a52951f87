"""The report stored at the end of `sane execute` is served only while it is still true:
the suite unchanged since (a write to any table a report reads moves the revision, through
SQLite triggers) and the same code. Otherwise the report is built afresh."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

from sane import api
from sane.reporting import build_report
from sane.suites.store import SuiteStore

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "cli_check"))
from tiny_suite import build_tiny_suite


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_suite(tmp_path_factory.mktemp("stored"))


@pytest.fixture
def suite(executed: Path, tmp_path: Path) -> Path:
    import shutil

    copy = tmp_path / "suite.db"
    shutil.copy(executed, copy)
    return copy


def fresh(suite: Path) -> dict:
    store = SuiteStore(suite, readonly=True)
    try:
        return build_report(store.snapshot()).model_dump(mode="json")
    finally:
        store.close()


def no_build(*args, **kwargs):
    raise AssertionError("the report was built, not served")


def test_an_unchanged_suite_serves_its_stored_report(suite: Path, monkeypatch) -> None:
    expected = fresh(suite)
    monkeypatch.setattr(api, "build_report", no_build)
    assert api.report(suite).model_dump(mode="json") == expected


@pytest.mark.parametrize(
    "write",
    [
        "update executions set verdict = 'pass', json = replace(json, '\"fault\"', '\"pass\"')",
        """update tolerances set json = '{"tolerance": 0.5}'""",
        (
            "insert into errors (stage, subject, target, message, created) "
            "values ('execute', 'x', 'lazy', 'late error', '2026-12-01')"
        ),
    ],
)
def test_any_write_to_what_a_report_reads_makes_it_built_again(suite: Path, write: str) -> None:
    stored = api.report(suite).model_dump(mode="json")
    with sqlite3.connect(suite) as db:  # a writer that is not sane's own code
        db.execute(write)
    now = api.report(suite).model_dump(mode="json")
    assert now == fresh(suite)
    assert now != stored


def test_other_code_builds_the_report_again(suite: Path, monkeypatch) -> None:
    monkeypatch.setattr(api, "code_fingerprint", lambda: "another version")
    calls = []
    real = api.build_report
    monkeypatch.setattr(api, "build_report", lambda *a, **k: calls.append(1) or real(*a, **k))
    api.report(suite)
    assert calls == [1]


def test_a_suite_without_a_revision_builds_its_report(suite: Path, monkeypatch) -> None:
    with sqlite3.connect(suite) as db:  # as a suite written before revisions were kept
        db.execute("delete from meta where key = 'revision'")
    calls = []
    real = api.build_report
    monkeypatch.setattr(api, "build_report", lambda *a, **k: calls.append(1) or real(*a, **k))
    assert api.report(suite).model_dump(mode="json") == fresh(suite)
    assert calls == [1]


def test_every_done_mark_and_stage_error_is_a_named_stage(suite: Path) -> None:
    from sane.records import Stage

    with sqlite3.connect(suite) as db:
        marks = {k.removeprefix("done:") for (k,) in db.execute("select key from meta")
                 if k.startswith("done:")}  # fmt: skip
        stages = {s for (s,) in db.execute("select distinct stage from errors")}
    assert marks and marks <= set(Stage)
    assert {s for s in stages if not s.startswith("vote:")} <= set(Stage)
