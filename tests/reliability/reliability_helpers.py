"""Helpers shared by the reliability tests (a uniquely named module: conftest names collide)."""

from __future__ import annotations

import importlib.util
import sqlite3
import sys
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
KILL_TRIALS = Path(__file__).resolve().parents[2] / "scripts" / "kill_trials.py"
TINY = ("tiny_spec.yaml", "tiny_examples.jsonl", "tiny_script.yaml")
TINY_ARGS = ["--votes", "3", "--cases", "4", "--capabilities", "2", "--recipes", "2"]


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
        "--model",
        "scripted",
        "--script",
        str(workdir / "tiny_script.yaml"),
        "--cache",
        str(workdir / "cache.db"),
        "--quiet",
        *TINY_ARGS,
    ]


@cache
def kill_trials() -> ModuleType:
    """scripts/kill_trials.py as a module (loaded once): its runs, kills, waits and checks are
    the machinery of the interruption, budget and concurrency tests."""
    spec = importlib.util.spec_from_file_location("kill_trials", KILL_TRIALS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
