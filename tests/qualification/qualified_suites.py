"""A real suite on a simulated oracle, for the qualification's report tests."""

from __future__ import annotations

from pathlib import Path

from sane import api
from sane.llm import LLMSettings
from sane.pipeline.run_config import run_config
from tests.simulation.sim_helpers import oracle, sweep_spec


def simulated_suite(tmp_path: Path, accuracy: float, *, qualify: bool = True) -> Path:
    spec = sweep_spec(tmp_path, "banned_words")
    model = oracle("banned_words", accuracy=accuracy)
    config = run_config(
        model=model, oracle_models=[model], cases=3, generator="operators", panel="contrastive"
    )
    suite = tmp_path / f"suite-{accuracy:g}.db"
    settings = LLMSettings(cache_path=tmp_path / "cache.db")
    api.generate(spec, suite=suite, config=config, llm=settings, qualify=qualify)
    return suite
