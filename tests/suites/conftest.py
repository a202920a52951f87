"""Fixtures for the suite tests: a working folder with the scripted scorer's files."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from suite_builders import FIXTURES, HERE, write_spec

from sane.llm import LLMSettings


@pytest.fixture
def suite_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("tiny_examples.jsonl", "tiny_script.yaml"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    write_spec(tmp_path)
    monkeypatch.syspath_prepend(str(HERE))
    sys.modules.pop("suite_targets", None)
    return tmp_path


@pytest.fixture
def scripted(suite_dir: Path) -> LLMSettings:
    return LLMSettings(
        cache_path=suite_dir / "cache.db", script_path=suite_dir / "tiny_script.yaml", backoff_s=0.0
    )
