"""Review tests: hand-built snapshots (the report tests' factory) and the tiny scripted suite."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS / "cli_check"))
from tiny_suite import build_tiny_suite


def _report_kit() -> Any:
    spec = importlib.util.spec_from_file_location(
        "sane_review_test_kit", TESTS / "reporting" / "conftest.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def kit() -> Any:
    """``kit.make_snapshot``, ``kit.Plan``, ``kit.run``."""
    return _report_kit()


@pytest.fixture(scope="session")
def built_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_suite(tmp_path_factory.mktemp("tiny-review"))


@pytest.fixture
def suite(built_suite: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "suite.db"
    shutil.copy(built_suite, copy)
    return copy
