"""Shared specs for the scorer tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from sane.records import OutputContract, ScorerSpec
from sane.scorers.base import BuildContext


def _make_spec(contract: OutputContract | None = None) -> ScorerSpec:
    return ScorerSpec(
        name="faithfulness",
        criterion="Every claim in the summary is supported by the source.",
        fields={"source": "the document", "summary": "the text being scored"},
        scored_field="summary",
        output=contract or OutputContract(type="ordinal", min=1, max=5, higher_is_better=True),
    )


@pytest.fixture
def make_spec() -> Callable[[OutputContract | None], ScorerSpec]:
    """Build the test spec with another output contract."""
    return _make_spec


@pytest.fixture
def spec() -> ScorerSpec:
    return _make_spec()


@pytest.fixture
def context(spec: ScorerSpec, tmp_path: Path) -> BuildContext:
    return BuildContext(spec=spec, base_dir=tmp_path)
