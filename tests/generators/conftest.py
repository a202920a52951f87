"""A working copy of the tiny fixture spec and a scripted model that answers every generator."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from sane.llm import LLMSettings

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent / "fixtures"


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("tiny_spec.yaml", "tiny_examples.jsonl"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    shutil.copy(HERE / "baseline_script.yaml", tmp_path / "script.yaml")
    monkeypatch.syspath_prepend(str(FIXTURES))
    sys.modules.pop("fixture_targets", None)
    return tmp_path


@pytest.fixture
def settings(workdir: Path) -> LLMSettings:
    return LLMSettings(
        cache_path=workdir / "cache.db", script_path=workdir / "script.yaml", backoff_s=0.0
    )
