"""How many threads the embedded models generate with (no model needed)."""

from __future__ import annotations

import pytest

from sane.errors import LLMError
from sane.local import llama


@pytest.mark.parametrize(("cores", "threads"), [(1, 1), (2, 1), (3, 1), (4, 2), (16, 8)])
def test_generation_uses_half_the_physical_cores_and_at_least_one(monkeypatch, cores, threads):
    monkeypatch.delenv(llama.GENERATION_THREADS_ENV, raising=False)
    assert llama.generation_threads(cores) == threads


def test_the_environment_chooses_the_generation_threads(monkeypatch):
    monkeypatch.setenv(llama.GENERATION_THREADS_ENV, "2")
    assert llama.generation_threads(2) == 2


@pytest.mark.parametrize("value", ["0", "-1", "two", "1.5"])
def test_a_bad_thread_count_is_refused_naming_the_variable(monkeypatch, value):
    monkeypatch.setenv(llama.GENERATION_THREADS_ENV, value)
    with pytest.raises(LLMError, match="SANE_LOCAL_GENERATION_THREADS must be a positive whole"):
        llama.generation_threads(2)
