"""Shared fixtures of the reliability tests: fixture files, the fault server, CLI helpers."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fault_server import FaultServer, serve
from reliability_helpers import FIXTURES, TINY


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
