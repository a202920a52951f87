"""Qualification shows its work (issue 55, item 2): one seed for every suite, so a suite of
another seed replays the first one's qualification from the cache instead of paying again."""

from __future__ import annotations

import shutil

from suite_builders import FIXTURES

import sane
from sane.llm import LLMSettings
from sane.qualification import qualify as qualify_module
from sane.qualification.tracking import QUALIFY_SEED, expected_calls


def test_every_suite_qualifies_its_oracle_with_one_seed(tmp_path, monkeypatch):
    for name in ("tiny_spec.yaml", "tiny_examples.jsonl", "tiny_script.yaml", "fixture_targets.py"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    seen: list[int] = []
    real = qualify_module.qualify

    async def spy(client, model, **kwargs):
        seen.append(kwargs["config"].seed)
        return await real(client, model, **kwargs)

    monkeypatch.setattr(qualify_module, "qualify", spy)
    settings = LLMSettings(
        script_path=tmp_path / "tiny_script.yaml", cache_path=tmp_path / "cache.db"
    )
    for seed in (0, 1):
        sane.generate(
            tmp_path / "tiny_spec.yaml", suite=tmp_path / f"s{seed}.db", model="scripted",
            votes=1, cases=2, max_capabilities=1, recipes_per_capability=1, seed=seed,
            llm=settings, qualify=True,
        )  # fmt: skip
    assert seen == [QUALIFY_SEED, QUALIFY_SEED]
    assert expected_calls("scripted", quick=True) == qualify_module.quick_calls()
