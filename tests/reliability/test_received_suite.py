"""A received suite is someone else's file: it may hold data, never a way into this machine.

Each test crafts a suite the way a hostile or careless sender could, with `sqlite3` on a real
suite: a stored spec naming a local file, SQL of its own in the schema (a trigger, a view),
rows that do not parse, a second name for the file. Every command refuses such a file in one
line (`sane: error: FILE: FIELD: problem`, exit 2) and leaves it byte-for-byte as it was.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from reliability_helpers import FIXTURES, cli, scripted_args

import sane
from sane.scorers.llm_judge import RUBRIC_MAX_BYTES

SECRET = "TOP-SECRET-7f3a9c"  # a local file's text that must never leave its file
QUICK_S = 60  # a refusal takes seconds; a hang is what this bounds


@pytest.fixture
def suite(tiny: Path) -> Path:
    """The tiny suite as its author generated it, everything in the main file (no WAL)."""
    path = tiny / "suite.db"
    code, _, err = cli("generate", tiny / "tiny_spec.yaml", "--suite", path,
                       *scripted_args(tiny))  # fmt: skip
    assert code == 0, err
    _craft(path)
    return path


def _craft(path: Path, *statements: str, args: tuple[object, ...] = ()) -> None:
    """What a sender can do to the file with sqlite3; the WAL folded in, as in a mailed file."""
    conn = sqlite3.connect(path)
    try:
        for statement in statements:
            conn.execute(statement, args if "?" in statement else ())
        conn.commit()
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _execute_args(work: Path) -> list[object]:
    return ["--script", work / "tiny_script.yaml", "--cache", work / "cache.db", "--quiet"]


def _refused(code: int, err: str, *words: str) -> None:
    """Exit 2 and exactly one `sane: error:` line holding every word, no traceback."""
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, err
    assert lines[0].startswith("sane: error: ") and "Traceback" not in err, err
    for word in words:
        assert word in lines[0], err


def _sane(*args: object, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The real command in its own process, bounded in time: what must not hang runs here."""
    here = Path(sane.__file__).parents[1]  # the sane under test, wherever it is imported from
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(FIXTURES), str(here)])}
    return subprocess.run(
        [sys.executable, "-m", "sane", *map(str, args)],
        check=False, cwd=cwd, env=env, capture_output=True, text=True, timeout=QUICK_S,
    )  # fmt: skip


# ------------------------------------------------- 1. targets from a stored spec folder
def _unfrozen(suite: Path, prompt: str) -> None:
    """A suite as written before targets were frozen into it: its stored spec names a judge
    rubric by path and the folder to read it in (`/`), and its targets table is empty."""
    conn = sqlite3.connect(suite)
    (stored,) = conn.execute("select value from meta where key = 'spec'").fetchone()
    conn.close()
    spec = json.loads(stored)
    spec["targets"] = [{"name": "judge", "kind": "llm_judge", "model": "scripted",
                        "prompt": prompt}]  # fmt: skip
    _craft(suite, "update meta set value = ? where key = 'spec'", args=(json.dumps(spec),))
    _craft(suite, "insert or replace into meta values ('spec_dir', '\"/\"')",
           "delete from targets")  # fmt: skip


@pytest.mark.parametrize("prompt", ["secret", "/dev/zero"])
def test_a_suite_without_frozen_targets_reads_no_file_its_stored_spec_names(
    suite: Path, prompt: str
) -> None:
    secret = suite.parent / "secret.txt"
    secret.write_text(SECRET)
    _unfrozen(suite, str(secret) if prompt == "secret" else prompt)
    before = _digest(suite)
    code, out, err = cli("execute", suite, *_execute_args(suite.parent))
    _refused(code, err, "no frozen targets", "--spec")
    assert _digest(suite) == before
    assert SECRET not in out + err
    assert SECRET.encode() not in suite.read_bytes()


def test_a_spec_given_on_this_run_freezes_the_targets_of_such_a_suite(suite: Path) -> None:
    _unfrozen(suite, str(suite.parent / "secret.txt"))
    code, _, err = cli("execute", suite, "--spec", suite.parent / "tiny_spec.yaml",
                       *_execute_args(suite.parent))  # fmt: skip
    assert code == 4, err  # run, with the fixture's one target that always raises
    conn = sqlite3.connect(suite)
    names = [name for (name,) in conn.execute("select name from targets order by seq")]
    conn.close()
    # the spec's targets, then the null scorers every execution plants (sane.scorers.null_scorers)
    assert names == ["careful", "lazy", "broken", "null-constant", "null-noise", "null-length"]


def _rubric_path(work: Path, kind: str) -> Path:
    if kind == "device":
        return Path("/dev/zero")
    path = work / f"rubric-{kind}"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    else:
        path.write_text("Score the summary from 1 to 5.\n" * (RUBRIC_MAX_BYTES // 20))
    return path


@pytest.mark.parametrize(
    ("kind", "problem"),
    [("device", "not a regular file"), ("fifo", "not a regular file"),
     ("directory", "not a regular file"), ("oversized", "larger than 256 KiB")],
)  # fmt: skip
def test_a_rubric_is_read_only_from_a_small_regular_file(
    tiny: Path, kind: str, problem: str
) -> None:
    spec = yaml.safe_load((tiny / "tiny_spec.yaml").read_text())
    rubric = _rubric_path(tiny, kind)
    spec["targets"] = [{"name": "judge", "kind": "llm_judge", "model": "scripted",
                        "prompt": str(rubric)}]  # fmt: skip
    (tiny / "spec.yaml").write_text(yaml.safe_dump(spec))
    run = _sane("generate", tiny / "spec.yaml", "--suite", tiny / "suite.db",
                *scripted_args(tiny), cwd=tiny)  # fmt: skip
    _refused(run.returncode, run.stderr, str(rubric), "targets.judge.prompt", problem)
    assert not (tiny / "suite.db").exists()


# --------------------------------------------------- 2, 3. SQL of the sender's own
ALL_PASS = "update executions set verdict = 'pass', json = json_set(json, '$.verdict', 'pass')"
ALTERED = (
    f"create trigger revise_executions_insert after insert on executions begin {ALL_PASS}; end"
)


@pytest.mark.parametrize(
    ("statements", "named"),
    [
        ([f"create trigger all_pass after insert on executions begin {ALL_PASS}; end"],
         "unknown trigger 'all_pass'"),
        (["drop trigger revise_executions_insert", ALTERED], "altered trigger 'revise_executions_insert'"),
        (["create view passes as select * from executions"], "unknown view 'passes'"),
        (["create index by_verdict on executions (verdict)"], "unknown index 'by_verdict'"),
    ],
)  # fmt: skip
def test_a_suite_bringing_its_own_sql_is_refused_by_every_command(
    suite: Path, statements: list[str], named: str
) -> None:
    """A trigger would run on this machine's writes (every verdict set to pass, so a faulting
    target passes `sane check`): each command refuses the file before it reads a row."""
    _craft(suite, *statements)
    before = _digest(suite)
    work = suite.parent
    for argv in (
        ["execute", suite, *_execute_args(work), "--trust-suite-code"],
        ["generate", work / "tiny_spec.yaml", "--suite", suite, *scripted_args(work)],
        ["report", suite],
        ["check", suite, "--max-faults", "0"],
        ["export", suite],
        ["rank", suite],
        ["review", "export", suite, "--question", "alignment", "--out", work / "review.csv"],
    ):
        code, _, err = cli(*argv)
        _refused(code, err, str(suite), named, "not opened")
        assert _digest(suite) == before, argv[0]


RECURSIVE = (
    "create view cases as with recursive n(i) as (select 1 union all select i + 1 from n) "
    "select i as id, '' as recipe_id, i as idx, '{}' as json from n"
)


@pytest.mark.parametrize("command", ["report", "check", "export", "view"])
def test_a_view_in_place_of_a_table_is_refused_at_once(suite: Path, command: str) -> None:
    """A recursive view named like a table never ends when it is read; the file is refused
    before anything reads it (in a process of its own, so a hang fails instead of waiting)."""
    _craft(suite, "drop table cases", RECURSIVE)
    before = _digest(suite)
    extra = {"view": ["--no-open", "--port", "0"], "check": ["--max-faults", "0"]}.get(command, [])
    run = _sane(command, suite, *extra, cwd=suite.parent)
    _refused(run.returncode, run.stderr, "'cases' is a view, not a table")
    assert _digest(suite) == before


# ------------------------------------------------------------- 5. rows that do not parse
FIRST = "(select min(rowid) from {table})"
DAMAGE = {
    "cases": f"update cases set json = 'not json' where rowid = {FIRST.format(table='cases')}",
    "recipes": "update recipes set json = json_set(json, '$.variant_roles', 5) "
    f"where rowid = {FIRST.format(table='recipes')}",
    "votes": f"update votes set transcripts = '[' where rowid = {FIRST.format(table='votes')}",
    "decisions": "update decisions set decision = 'perhaps' "
    f"where rowid = {FIRST.format(table='decisions')}",
    "meta": "update meta set value = '{\"name\": 5}' where key = 'spec'",
}


@pytest.mark.parametrize("table", list(DAMAGE))
def test_a_row_that_does_not_parse_is_one_line_naming_it(suite: Path, table: str) -> None:
    # without its stored report, so every reader reads the rows
    _craft(suite, DAMAGE[table], "delete from meta where key = 'report'")
    before = _digest(suite)
    work = suite.parent
    for argv in (
        ["execute", suite, *_execute_args(work), "--trust-suite-code"],
        ["report", suite],
        ["check", suite, "--max-faults", "0"],
        ["export", suite],
    ):
        code, _, err = cli(*argv)
        _refused(code, err, f"suite file damaged ({table}, row ")
        assert _digest(suite) == before, argv[0]


def test_sane_view_answers_a_damaged_suite_with_the_line(suite: Path) -> None:
    """The page says what is wrong (503, as while a suite cannot be shown yet), where the
    server used to close the connection unanswered."""
    import threading
    import urllib.error
    import urllib.request

    from sane.view import make_server

    _craft(suite, DAMAGE["cases"], "delete from meta where key = 'report'")
    server = make_server(suite, port=0, interval_ms=200)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    try:
        with pytest.raises(urllib.error.HTTPError) as answer:
            urllib.request.urlopen(f"http://{host}:{port}/", timeout=30)
        assert answer.value.code == 503
        assert "suite file damaged (cases, row " in answer.value.read().decode("utf-8")
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


# ------------------------------------------------------------- 8. other names, one lock
def test_a_symbolic_link_to_a_suite_finds_the_running_writers_lock(suite: Path) -> None:
    from sane.suites.lock import SuiteLock

    link = suite.parent / "elsewhere" / "link.db"
    link.parent.mkdir()
    link.symlink_to(suite)
    running = SuiteLock(suite)
    running.acquire()
    try:
        code, _, err = cli("execute", link, *_execute_args(suite.parent), "--trust-suite-code")
        _refused(code, err, "another sane run is writing this suite")
    finally:
        running.release()


def test_a_writer_refuses_a_suite_file_with_hard_links(suite: Path) -> None:
    os.link(suite, suite.parent / "second-name.db")
    before = _digest(suite)
    for argv in (
        ["execute", suite, *_execute_args(suite.parent), "--trust-suite-code"],
        ["generate", suite.parent / "tiny_spec.yaml", "--suite", suite,
         *scripted_args(suite.parent)],
    ):  # fmt: skip
        code, _, err = cli(*argv)
        _refused(code, err, "2 hard links")
        assert _digest(suite) == before
    assert cli("report", suite)[0] == 0  # a reader takes no lock: it is served
