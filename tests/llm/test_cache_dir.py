"""SANE_CACHE_DIR moves the LLM cache with the model files and wheels (issue 55, item 6): a
run meant to start fresh in another cache folder must not replay the old folder's answers."""

from __future__ import annotations

from sane.llm import LLMSettings


def test_sane_cache_dir_moves_the_llm_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SANE_CACHE_DIR", str(tmp_path))
    assert LLMSettings().resolved_cache_path() == tmp_path / "llm-cache.db"


def test_without_it_the_cache_is_in_the_user_cache_folder(monkeypatch):
    monkeypatch.delenv("SANE_CACHE_DIR", raising=False)
    path = LLMSettings().resolved_cache_path()
    assert path.name == "llm-cache.db" and path.parent.name == "sane"
