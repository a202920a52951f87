"""The pairwise tests' fixtures: the planted judges importable, and one comparative suite
per module, generated and executed (comparative_suite.py), copied for each test."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from comparative_suite import HERE, generate_comparative, settings_in, write_comparative

import sane


@pytest.fixture(autouse=True)
def _targets_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(HERE))
    sys.modules.pop("comparative_targets", None)


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One comparative suite per module, generated and executed (copied by `comparative`)."""
    folder = tmp_path_factory.mktemp("comparative")
    sys.path.insert(0, str(HERE))
    try:
        write_comparative(folder)
        suite = generate_comparative(folder)
        sane.execute(suite, spec=folder / "comparative.yaml", llm=settings_in(folder), timeout_s=5)
    finally:
        sys.path.remove(str(HERE))
    return suite


@pytest.fixture
def comparative(executed: Path, tmp_path: Path) -> Path:
    """A copy of the executed comparative suite, its spec, examples and cache beside it."""
    for path in executed.parent.iterdir():
        if path.suffix in (".db", ".yaml", ".jsonl"):  # not the lock, nor an empty WAL
            shutil.copy(path, tmp_path / path.name)
    return tmp_path / "suite.db"
