"""Shared fixtures of the reliability tests: fixture files, the fault server, CLI helpers."""

from __future__ import annotations

import shutil
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fault_server import FaultServer, serve

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TINY = ("tiny_spec.yaml", "tiny_examples.jsonl", "tiny_script.yaml")
TINY_ARGS = ["--votes", "3", "--cases", "4", "--capabilities", "2", "--recipes", "2"]


@pytest.fixture
def tiny(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory with the tiny spec, examples and script, targets importable."""
    for name in TINY:
        shutil.copy(FIXTURES / name, tmp_path / name)
    monkeypatch.syspath_prepend(str(FIXTURES))
    sys.modules.pop("fixture_targets", None)
    return tmp_path


@pytest.fixture
def fault_server() -> Iterator[FaultServer]:
    with serve() as server:
        yield server


def integrity(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return str(conn.execute("pragma integrity_check").fetchone()[0])
    finally:
        conn.close()


def comparable(report: dict[str, Any]) -> dict[str, Any]:
    """A report without what legitimately differs between runs: timestamps and call accounting."""
    out = dict(report)
    out.pop("calls", None)
    out["suite"] = {k: v for k, v in report["suite"].items() if k != "created"}
    errors = dict(report["errors"])
    errors["items"] = sorted(
        (tuple(sorted((k, v) for k, v in item.items() if k != "created")))
        for item in errors.get("items", [])
    )
    out["errors"] = errors
    return out


def cli(*args: object) -> tuple[int, str, str]:
    """Run the real Typer app in-process: (exit code, stdout, stderr)."""
    from typer.testing import CliRunner

    from sane.cli import app

    result = CliRunner().invoke(app, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def scripted_args(workdir: Path) -> list[str]:
    return [
        "--model", "scripted", "--script", str(workdir / "tiny_script.yaml"),
        "--cache", str(workdir / "cache.db"), "--quiet", *TINY_ARGS,
    ]
