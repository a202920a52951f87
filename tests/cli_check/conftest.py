"""One executed tiny suite per session; each test gets its own copy of the file."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tiny_suite import build_tiny_suite


@pytest.fixture(scope="session")
def built_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_suite(tmp_path_factory.mktemp("tiny"))


@pytest.fixture
def suite(built_suite: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "suite.db"
    shutil.copy(built_suite, copy)
    return copy
