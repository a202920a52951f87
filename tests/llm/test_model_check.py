"""A model string is refused or accepted without importing litellm once its provider list is
kept for the installed litellm version (start-up: seconds saved on every refusal)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sane.llm import model_problem
from sane.llm._models import _providers_file


def test_the_provider_list_is_kept_and_then_read_instead_of_importing_litellm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    kept = _providers_file()
    assert kept is not None and str(kept).startswith(str(tmp_path)) and not kept.exists()
    assert model_problem("openai/gpt-4o-mini") is None  # the first check asks litellm...
    assert kept.exists() and "anthropic" in kept.read_text()  # ...and keeps its list
    monkeypatch.setitem(sys.modules, "litellm", None)  # from now on an import would fail
    assert model_problem("anthropic/claude-x") is None
    assert "unknown model 'nosuch/model'" in (model_problem("nosuch/model") or "")
    with pytest.raises(ImportError):  # a string without a provider still needs litellm
        model_problem("gpt-4o-mini")
