"""Shared set-up: a copy of the tiny fixture spec, its examples and the scripted model rules."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from sane.llm import LLMSettings

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(autouse=True)
def _no_inherited_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """pytest-xdist starts its workers with COLUMNS=80, and COLUMNS decides the CLI's table
    width (sane.cli._common): without this a test sees 80 columns in a parallel run and 160
    (a pipe's) in a serial one. A test that wants a width sets COLUMNS itself."""
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("tiny_spec.yaml", "tiny_examples.jsonl", "tiny_script.yaml"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    monkeypatch.syspath_prepend(str(FIXTURES))
    sys.modules.pop("fixture_targets", None)
    return tmp_path


@pytest.fixture
def settings(workdir: Path) -> LLMSettings:
    return LLMSettings(
        cache_path=workdir / "cache.db", script_path=workdir / "tiny_script.yaml", backoff_s=0.0
    )


@pytest.fixture
def suite_dir(tmp_path: Path) -> Path:
    """A folder with the tiny examples, the scripted rules and a spec of four python targets
    whose pass rates differ (tests/fixtures/suite_builders.py)."""
    from suite_builders import write_spec

    for name in ("tiny_examples.jsonl", "tiny_script.yaml"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    write_spec(tmp_path)
    sys.modules.pop("suite_targets", None)
    return tmp_path


@pytest.fixture
def scripted(suite_dir: Path) -> LLMSettings:
    return LLMSettings(
        cache_path=suite_dir / "cache.db", script_path=suite_dir / "tiny_script.yaml", backoff_s=0.0
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every embedded-model test goes to one pytest-xdist worker (`--dist loadgroup`, set in
    pyproject.toml): the models load once, in that process, and two processes never run
    llama.cpp at once."""
    for item in items:
        if item.get_closest_marker("local_models"):
            item.add_marker(pytest.mark.xdist_group("embedded-models"))
