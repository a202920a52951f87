"""Every output path is written at once or refused in one line (exit 2), and a suite in a
read-only folder is refused by a writing run in one line; nothing stored is touched.

Each case here ended in a traceback (exit 1) before: `report --out` into a missing folder,
onto a folder, into a read-only folder; `--human` on a non-UTF-8 file; `review export --out`
into a missing folder; `execute` and `generate` on a suite in a read-only folder.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from reliability_helpers import cli, scripted_args


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[Path]:
    """`folder` made read-only for this process: by its mode for a user, by the immutable
    attribute for root (whom a mode does not stop; CI runs as root)."""
    folder.mkdir(exist_ok=True)
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    if root:
        subprocess.run(["chattr", "+i", str(folder)], check=False, capture_output=True)
    else:
        folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        try:
            (folder / ".probe").write_text("x")
        except OSError:
            pass
        else:
            (folder / ".probe").unlink()
            pytest.fail(f"could not make {folder} read-only on this machine (chattr, chmod)")
        yield folder
    finally:
        if root:
            subprocess.run(["chattr", "-i", str(folder)], check=False, capture_output=True)
        folder.chmod(stat.S_IRWXU)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One generated and executed tiny suite, copied by each test that changes things."""
    from reliability_helpers import FIXTURES, TINY

    work = tmp_path_factory.mktemp("built")
    for name in TINY:
        shutil.copy(FIXTURES / name, work / name)
    import sys

    sys.path.insert(0, str(FIXTURES))
    try:
        code, _, err = cli("generate", work / "tiny_spec.yaml", "--suite", work / "suite.db",
                           *scripted_args(work))  # fmt: skip
        assert code == 0, err
        code, _, err = cli("execute", work / "suite.db", "--spec", work / "tiny_spec.yaml",
                           "--script", work / "tiny_script.yaml", "--cache", work / "cache.db",
                           "--quiet")  # fmt: skip
        assert code == 4, err  # the tiny spec's `broken` target errors on every case
    finally:
        sys.path.remove(str(FIXTURES))
    return work


def _one_line(code: int, err: str, option: str, words: str) -> None:
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1, err
    assert option in err and words in err, err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["report", "{suite}", "--format", "json", "--out", "{out}"], "--out"),
        (["report", "{suite}", "--format", "md", "--out", "{out}"], "--out"),
        (["review", "export", "{suite}", "--question", "alignment", "--out", "{out}"], "--out"),
        (["export", "{suite}", "--format", "csv", "--out", "{out}"], "--out"),
        (["check", "{suite}", "--max-faults", "100", "--junit", "{out}"], "--junit"),
    ],
    ids=["report json", "report md", "review export", "export csv", "check junit"],
)
@pytest.mark.parametrize("where", ["missing folder", "a folder", "read-only folder"])
def test_a_bad_output_path_is_refused_in_one_line(
    built: Path, tmp_path: Path, argv: list[str], option: str, where: str
) -> None:
    out = {
        "missing folder": tmp_path / "missing" / "out.csv",
        "a folder": tmp_path / "folder.csv",
        "read-only folder": tmp_path / "ro" / "out.csv",
    }[where]
    (tmp_path / "folder.csv").mkdir()
    before = (built / "suite.db").read_bytes()
    args = [a.format(suite=built / "suite.db", out=out) for a in argv]
    with contextlib.ExitStack() as stack:
        if where == "read-only folder":
            stack.enter_context(read_only(tmp_path / "ro"))
        code, _, err = cli(*args)
    words = {"missing folder": "does not exist", "a folder": "is a folder",
             "read-only folder": "cannot write there"}[where]  # fmt: skip
    _one_line(code, err, option, words)
    assert (built / "suite.db").read_bytes() == before


def test_a_failed_write_leaves_the_existing_file_as_it_was(built: Path, tmp_path: Path) -> None:
    from sane.output_files import write_atomic

    out = tmp_path / "report.json"
    out.write_text("the old report\n")

    def half_then_fail(handle) -> None:
        handle.write("half a new rep")
        raise RuntimeError("the writer broke")

    with pytest.raises(RuntimeError):
        write_atomic(out, half_then_fail, "--out")
    assert out.read_text() == "the old report\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]  # no temporary file left


def test_a_human_file_that_is_not_utf8_is_refused(built: Path, tmp_path: Path) -> None:
    human = tmp_path / "human.csv"
    human.write_bytes(b"careful,0.9\nlazy,\xff\xfe0.1\n")
    code, _, err = cli("report", built / "suite.db", "--human", human)
    _one_line(code, err, str(human), "not a UTF-8 text file")


def test_a_review_file_that_is_not_utf8_is_refused(built: Path, tmp_path: Path) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_bytes(b"item_id,question,human_label\n\xff\xfe,alignment,yes\n")
    suite = tmp_path / "suite.db"
    shutil.copy(built / "suite.db", suite)
    code, _, err = cli("review", "import", suite, labels)
    _one_line(code, err, str(labels), "not a UTF-8 text file")


@pytest.mark.parametrize("which", ["execute", "generate"])
def test_a_suite_in_a_read_only_folder_is_refused_by_a_writing_run(
    built: Path, tmp_path: Path, which: str
) -> None:
    folder = tmp_path / "received"
    folder.mkdir()
    shutil.copy(built / "suite.db", folder / "suite.db")
    with read_only(folder):
        before = (folder / "suite.db").read_bytes()
        if which == "execute":
            code, _, err = cli("execute", folder / "suite.db", "--spec", built / "tiny_spec.yaml",
                               "--script", built / "tiny_script.yaml", "--quiet")  # fmt: skip
        else:
            code, _, err = cli("generate", built / "tiny_spec.yaml", "--suite",
                               folder / "suite.db", *scripted_args(built))  # fmt: skip
        _one_line(code, err, str(folder / "suite.db"), "lock file")
        assert "writable folder" in err
        assert (folder / "suite.db").read_bytes() == before
        # reading it where it lies still works
        assert cli("report", folder / "suite.db", "--format", "json")[0] == 0
