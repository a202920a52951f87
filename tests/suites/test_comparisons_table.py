"""The `comparisons` table: a comparative target's audit kept with the suite (one row per
target, replaced by a newer audit), read back whole, unmeasured numbers included; a suite
written before the table opens read-only without it and gains it when next written; a
trigger on it that sane did not make is refused like any other foreign schema object."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from sane.comparison_record import ComparisonAudit, ComparisonCheck
from sane.errors import InputError
from sane.suites.store import SuiteStore

OLD = Path(__file__).resolve().parents[1] / "fixtures" / "old_suite"


def _audit(target: str, flip_rate: float | None, definition: str = "d1") -> ComparisonAudit:
    swap = ComparisonCheck(
        kind="swap_symmetry", statistic="position preference", value=0.5, ci=(0.2, 0.8), n=8,
        rate=flip_rate, rate_ci=None if flip_rate is None else (0.3, 0.9),
        finding="prefers position A (shown first)" if flip_rate else None,
    )  # fmt: skip
    unmeasured = ComparisonCheck(
        kind="transitivity", statistic="circles", value=None, ci=None, n=0,
        skipped="no decisive verdict to measure it on",
    )  # fmt: skip
    return ComparisonAudit(
        target=target, definition_sha256=definition, examples=8, calls=96,
        checks=[swap, unmeasured],
    )  # fmt: skip


def test_audits_round_trip_one_row_per_target(tmp_path: Path) -> None:
    store = SuiteStore(tmp_path / "suite.db", create=True, writer=True)
    try:
        assert store.comparisons() == []
        first, other = _audit("judge-b", 0.6), _audit("judge-a", None)
        store.put_comparison(first)
        store.put_comparison(other)
        assert store.comparisons() == [other, first]  # by target
        newer = _audit("judge-b", 0.1, definition="d2")
        store.put_comparison(newer)
        assert store.comparisons() == [other, newer]
    finally:
        store.close()
    read = SuiteStore(tmp_path / "suite.db", readonly=True)
    try:
        (a, b) = read.comparisons()
    finally:
        read.close()
    assert a.check("transitivity").value is None and a.swap_consistency is None
    assert b.swap_consistency == pytest.approx(0.9)
    assert b.swap_consistency_ci == pytest.approx((0.1, 0.7))


def test_a_suite_written_before_the_table_opens_and_gains_it(tmp_path: Path) -> None:
    for path in OLD.iterdir():
        shutil.copy(path, tmp_path / path.name)
    suite = tmp_path / "suite.db"
    with sqlite3.connect(suite) as db:
        tables = {row[0] for row in db.execute("select name from sqlite_master")}
    assert "comparisons" not in tables  # the fixture predates it
    read = SuiteStore(suite, readonly=True)
    try:
        assert read.comparisons() == [] and read.snapshot().comparisons == []
    finally:
        read.close()
    store = SuiteStore(suite, writer=True)  # a writer adds what an older suite lacks
    try:
        store.put_comparison(_audit("judge", 0.5))
    finally:
        store.close()
    read = SuiteStore(suite, readonly=True)  # the new table and its triggers are sane's own
    try:
        assert [a.target for a in read.snapshot().comparisons] == ["judge"]
    finally:
        read.close()


def test_a_write_to_the_table_moves_the_revision(tmp_path: Path) -> None:
    store = SuiteStore(tmp_path / "suite.db", create=True, writer=True)
    try:
        before = store.revision()
        store.put_comparison(_audit("judge", 0.5))
        assert store.revision() != before
    finally:
        store.close()


def test_a_foreign_trigger_on_the_table_is_refused(tmp_path: Path) -> None:
    suite = tmp_path / "suite.db"
    SuiteStore(suite, create=True, writer=True).close()
    with sqlite3.connect(suite) as db:
        db.execute(
            "create trigger rewrite after insert on comparisons begin "
            "update comparisons set json = '{}'; end"
        )
    with pytest.raises(InputError, match="unknown trigger 'rewrite'"):
        SuiteStore(suite, readonly=True)
