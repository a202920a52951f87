"""The dry run estimates an embedded model's wall time from recorded rates (issue 55, item 2):
a newcomer should not learn that a qualification takes 17 minutes by waiting for it."""

from __future__ import annotations

import shutil

from suite_builders import FIXTURES
from typer.testing import CliRunner

from sane.cli import app
from sane.pipeline.estimate import Estimate, StageEstimate
from sane.pipeline.estimate_time import RATES, wall_time

QWEN = "local/qwen2.5-coder-1.5b"


def _estimate(model: str) -> Estimate:
    stage = StageEstimate(
        stage="alignment", calls=10, formula="", model=model, prompt_tokens=10_500,
        completion_tokens=2_000, cost=0.0,
    )  # fmt: skip
    return Estimate(
        stages=[stage], calls=10, worst_case_calls=30, formula="", prompt_tokens=10_500,
        completion_tokens=2_000, cost=0.0, unpriced_models=[],
    )  # fmt: skip


def test_wall_time_comes_from_the_recorded_rates_and_counts_the_qualification():
    fast, slow = RATES[QWEN]
    alone = wall_time(_estimate(QWEN))
    assert alone == (10_500 / fast.prompt_tok_s + 2_000 / fast.generate_tok_s,
                     10_500 / slow.prompt_tok_s + 2_000 / slow.generate_tok_s)  # fmt: skip
    with_qualification = wall_time(_estimate(QWEN), qualify_calls=10, oracle_models=[QWEN])
    assert with_qualification == (2 * alone[0], 2 * alone[1])
    assert wall_time(_estimate("openai/gpt-4o-mini")) is None  # an API model has a price


def test_the_dry_run_prints_it_for_an_embedded_model_only(tmp_path):
    for name in ("tiny_spec.yaml", "tiny_examples.jsonl", "fixture_targets.py"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    args = ["generate", str(tmp_path / "tiny_spec.yaml"), "--suite", str(tmp_path / "s.db")]
    local = CliRunner().invoke(app, [*args, "--model", QWEN, "--dry-run"])
    assert local.exit_code == 0, local.output
    assert "embedded models' wall time, upper bound: about " in local.stdout
    assert "RECORDED rates" in local.stdout
    scripted = CliRunner().invoke(app, [*args, "--model", "scripted", "--dry-run"])
    assert scripted.exit_code == 0 and "wall time" not in scripted.stdout
