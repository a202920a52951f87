"""Fixtures for the LLM layer: scripted rules files, settings and a loopback OpenAI server."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from llm_server import FakeOpenAI, serve

from sane.llm import LLMSettings
from sane.records import CallRecord


@pytest.fixture
def write_script(tmp_path: Path) -> Callable[[dict[str, Any]], Path]:
    def write(rules: dict[str, Any]) -> Path:
        path = tmp_path / "rules.yaml"
        path.write_text(yaml.safe_dump(rules), encoding="utf-8")
        return path

    return write


@pytest.fixture
def settings_for(tmp_path: Path) -> Callable[..., LLMSettings]:
    def make(**overrides: Any) -> LLMSettings:
        values: dict[str, Any] = {"cache_path": tmp_path / "cache.db", "backoff_s": 0.01}
        values.update(overrides)
        return LLMSettings(**values)

    return make


@pytest.fixture
def records() -> list[CallRecord]:
    return []


@pytest.fixture
def openai_server() -> Iterator[FakeOpenAI]:
    with serve() as fake:
        yield fake
