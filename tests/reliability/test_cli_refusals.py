"""Bad command-line values are refused in one line naming the option (exit 2), before any
call and without touching anything stored.

Each case here ended in a traceback (exit 1) or a misleading line before: `view --port`
on a port in use, `view --interval inf`, `--max-cost nan` / `-1` and `--max-calls -1`
(pydantic's validation error), `init` onto a file, `--cache` naming a folder (a "storage
error" that blamed the suite); `rank --human` took a `nan` score silently; `qualify --out`
into a missing folder was refused only after its calls; `generate --dry-run` did not check
that a judge's rubric renders (the real run refuses it).
"""

from __future__ import annotations

import shutil
import socket
import sys
from pathlib import Path

import pytest
import yaml
from reliability_helpers import FIXTURES, TINY, cli


def _one_line(code: int, err: str, option: str, words: str) -> None:
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("sane: error: ") and option in err and words in err, err
    assert "Traceback" not in err


@pytest.fixture
def work(tmp_path: Path) -> Path:
    for name in TINY:
        shutil.copy(FIXTURES / name, tmp_path / name)
    sys.path.insert(0, str(FIXTURES))
    yield tmp_path
    sys.path.remove(str(FIXTURES))


@pytest.mark.parametrize(
    ("argv", "option", "words"),
    [
        (["view", "{suite}", "--interval", "inf", "--no-open"], "--interval", "finite"),
        (["view", "{suite}", "--interval", "nan", "--no-open"], "--interval", "finite"),
        (["execute", "{suite}", "--max-cost", "nan"], "--max-cost", "finite number >= 0"),
        (["execute", "{suite}", "--max-cost", "-1"], "--max-cost", "finite number >= 0"),
        (["execute", "{suite}", "--max-calls", "-1"], "--max-calls", "finite number >= 0"),
        (
            [
                "generate",
                "{spec}",
                "--suite",
                "{suite}",
                "--model",
                "scripted",
                "--dry-run",
                "--max-calls",
                "-1",
            ],
            "--max-calls",
            "finite number >= 0",
        ),
        (
            [
                "generate",
                "{spec}",
                "--suite",
                "{suite}",
                "--model",
                "scripted",
                "--max-cost",
                "inf",
            ],
            "--max-cost",
            "finite number >= 0",
        ),
        (["execute", "{suite}", "--llm-timeout", "nan"], "--llm-timeout", "finite number >= 1"),
        (["execute", "{suite}", "--cache", "{folder}"], "--cache", "is a folder"),
        (["init", "judge", "--dir", "{file}"], "--dir", "is a file, not a folder"),
        (["init", "{file}"], "NAME", "is a file, not a folder"),
    ],
    ids=[
        "interval inf",
        "interval nan",
        "max-cost nan",
        "max-cost -1",
        "max-calls -1",
        "dry-run max-calls -1",
        "max-cost inf",
        "llm-timeout nan",
        "cache folder",
        "init --dir file",
        "init NAME file",
    ],
)
def test_a_bad_option_is_refused_in_one_line(
    work: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str], option: str, words: str
) -> None:
    monkeypatch.chdir(work)
    (work / "folder").mkdir()
    (work / "afile").write_text("mine\n")
    paths = {"suite": work / "suite.db", "spec": work / "tiny_spec.yaml",
             "folder": work / "folder", "file": "afile"}  # fmt: skip
    code, _, err = cli(*[a.format(**paths) for a in argv])
    _one_line(code, err, option, words)
    assert not (work / "suite.db").exists() and not (work / "cache.db").exists()
    assert (work / "afile").read_text() == "mine\n"


def test_view_on_a_port_in_use_is_refused_in_one_line(work: Path) -> None:
    code, _, err = cli("generate", work / "tiny_spec.yaml", "--suite", work / "suite.db",
                       "--model", "scripted", "--script", work / "tiny_script.yaml",
                       "--cache", work / "cache.db", "--quiet", "--skip-qualify",
                       "--capabilities", "1", "--recipes", "1", "--cases", "2")  # fmt: skip
    assert code == 0, err
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code, _, err = cli("view", work / "suite.db", "--port", port, "--no-open")
    _one_line(code, err, "--port", f"cannot listen on 127.0.0.1:{port}")


@pytest.mark.parametrize("score", ["nan", "inf", "-inf"])
def test_a_non_finite_human_score_is_refused_naming_file_row_and_field(
    work: Path, score: str
) -> None:
    human = work / "human.csv"
    human.write_text(f"target,score\ncareful,0.9\nlazy,{score}\n")
    code, _, err = cli("rank", work / "suite.db", "--human", human)
    _one_line(code, err, f"{human}: row 3.score", "not a finite number")


def test_qualify_refuses_a_bad_out_before_any_call(work: Path) -> None:
    code, _, err = cli("qualify", "--oracle-model", "scripted", "--quick",
                       "--script", work / "tiny_script.yaml", "--cache", work / "cache.db",
                       "--out", work / "missing" / "q.md")  # fmt: skip
    _one_line(code, err, "--out", "does not exist")
    assert not (work / "cache.db").exists()  # no call was made


def test_the_dry_run_refuses_a_rubric_that_does_not_render(work: Path) -> None:
    (work / "judge.j2").write_text("Source: {{ fields.source }}\nSummary: {{ fields.summry }}\n")
    spec = yaml.safe_load((work / "tiny_spec.yaml").read_text())
    spec["targets"] = [{"name": "judge", "kind": "llm_judge", "model": "scripted",
                        "prompt": "judge.j2"}]  # fmt: skip
    (work / "tiny_spec.yaml").write_text(yaml.safe_dump(spec))
    code, _, err = cli("generate", work / "tiny_spec.yaml", "--suite", work / "suite.db",
                       "--model", "scripted", "--dry-run")  # fmt: skip
    _one_line(code, err, "targets.judge.prompt", "summry")
    assert not (work / "suite.db").exists()
