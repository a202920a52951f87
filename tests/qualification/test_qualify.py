"""`sane qualify`: an oracle's skill on exact ground truth, and the verdict per panel.

Simulated oracles of known accuracy are the ground truth for the qualification itself: a
good one must qualify, a poor or a constant one must not."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sane import api
from sane.cli import app
from sane.llm import LLMClient, LLMSettings
from sane.pipeline.run_config import run_config
from sane.qualification import qualify as qualification
from sane.qualification_record import Qualification, QualificationStatus
from sane.records import RunConfig

TRUTH = "any_module:any_function"  # replaced by each reference criterion's own truth


def _qualify(tmp_path: Path, model: str, seed: int = 0, quick: bool = True) -> Qualification:
    config = run_config(model=model, oracle_models=[model], seed=seed)
    settings = LLMSettings(cache_path=tmp_path / f"cache-{seed}.db", backoff_s=0.0)
    return api.qualify(model, quick=quick, config=config, llm=settings)


def test_the_thresholds_come_from_the_sweep_for_every_panel() -> None:
    needed, failing, source = qualification.thresholds()
    assert set(needed) == set(failing) == {"plain", "contrastive", "blind"}
    assert "oracle-sweep" in source


@pytest.mark.parametrize("seed", range(10))
def test_a_good_oracle_qualifies_and_a_poor_one_does_not(tmp_path: Path, seed: int) -> None:
    good = _qualify(tmp_path, f"sim/accuracy=0.95,truth={TRUTH}", seed)
    poor = _qualify(tmp_path, f"sim/accuracy=0.6,truth={TRUTH}", seed)
    default = RunConfig.model_fields["panel"].default
    assert good.calls == poor.calls <= 150 and good.answered == good.calls
    assert good.qualifies[default], good.verdict(default)
    assert not any(poor.qualifies.values()), poor.verdict(default)
    assert good.simulated and "SIMULATED" in qualification.render(good)


def test_a_constant_oracle_fails_with_every_figure_against_it(tmp_path: Path) -> None:
    constant = _qualify(tmp_path, f"sim/accuracy=1,bias=1,truth={TRUTH}")  # yes / lower always
    assert not any(constant.qualifies.values())
    assert constant.false_accept.rate == 1.0 and constant.order_consistency.rate == 0.0
    assert constant.accuracy.rate is not None and constant.accuracy.rate < 0.5


def test_a_perfect_oracle_is_right_on_every_question_of_the_full_run(tmp_path: Path) -> None:
    perfect = _qualify(tmp_path, f"sim/accuracy=1,truth={TRUTH}", quick=False)
    assert perfect.calls > 500
    assert perfect.accuracy.count == perfect.accuracy.of
    assert perfect.order_consistency.rate == 1.0 and perfect.false_accept.count == 0


def test_a_model_that_errors_is_not_qualified_and_its_errors_are_shown(tmp_path: Path) -> None:
    script = tmp_path / "rules.yaml"
    script.write_text("rules: []\n")  # no rule answers: every call fails
    settings = LLMSettings(cache_path=tmp_path / "c.db", script_path=script, backoff_s=0.0)
    client = LLMClient(settings)
    found = asyncio.run(qualification.qualify(client, "scripted"))
    assert found.answered == 0 and found.accuracy.rate is None
    assert not any(found.qualifies.values()) and "no rule matches" in found.errors[0]
    assert "only 0 of 131 calls answered" in found.verdict("contrastive")


def test_the_status_says_unqualified_first_when_a_model_was_never_qualified() -> None:
    status = QualificationStatus.of("contrastive", ["openai/x"], [])
    assert not status.qualified and status.summary.startswith("Oracle NOT qualified")
    assert "never qualified" in status.summary


def test_the_command_prints_figures_and_refuses_bad_input(tmp_path: Path) -> None:
    runner = CliRunner()
    model = f"sim/accuracy=0.95,truth={TRUTH}"
    cache = str(tmp_path / "cache.db")
    result = runner.invoke(app, ["qualify", "--oracle-model", model, "--quick", "--cache", cache])
    assert result.exit_code == 0, result.output
    assert "accuracy:" in result.stdout and "qualifies for panel contrastive" in result.stdout
    result = runner.invoke(
        app, ["qualify", "--oracle-model", model, "--quick", "--cache", cache, "-f", "json"]
    )
    (document,) = json.loads(result.stdout)
    assert document["calls"] == 131 and document["simulated"] is True
    bad = runner.invoke(app, ["qualify", "--oracle-model", "sim/accuracy=2,truth=a:b"])
    assert bad.exit_code == 2 and "accuracy" in bad.output


def test_a_budget_stop_in_the_qualification_resumes_to_the_same_verdict(tmp_path: Path) -> None:
    """`sane generate` qualifies first; a --max-calls stop there exits 3, and reruns replay
    the paid calls and reach the qualification an uninterrupted run reaches."""
    from tests.simulation.sim_helpers import oracle, sweep_spec

    spec = sweep_spec(tmp_path, "banned_words")
    model = oracle("banned_words", accuracy=0.9)
    runner = CliRunner()

    def generate(suite: Path, *budget: str) -> int:
        argv = [
            "generate", str(spec), "--suite", str(suite), "--model", model,
            "--oracle-model", model, "--generator", "operators", "--cases", "3",
            "--cache", str(suite.with_suffix(".cache.db")), "--quiet", *budget,
        ]  # fmt: skip
        return runner.invoke(app, argv).exit_code

    codes = [generate(tmp_path / "stopped.db", "--max-calls", "100")]
    while codes[-1] == 3 and len(codes) < 10:
        codes.append(generate(tmp_path / "stopped.db", "--max-calls", "100"))
    assert codes[0] == 3 and codes[-1] == 0, codes
    assert generate(tmp_path / "whole.db") == 0
    stopped = api.report(tmp_path / "stopped.db").validity.qualification
    whole = api.report(tmp_path / "whole.db").validity.qualification
    assert stopped is not None and stopped == whole and len(stopped.models) == 1


def test_every_wrong_answer_is_listed_as_a_miss_a_reader_can_judge(tmp_path: Path) -> None:
    poor = _qualify(tmp_path, f"sim/accuracy=0.6,truth={TRUTH}")
    perfect = _qualify(tmp_path, f"sim/accuracy=1,truth={TRUTH}")
    assert perfect.misses == [] and "Missed questions" not in qualification.render(perfect)
    wrong = poor.accuracy.of - poor.accuracy.count
    alignment = [m for m in poor.misses if m.question == "alignment"]
    direction = [m for m in poor.misses if m.question == "direction"]
    # one miss per wrong yes/no answer; a direction pair with one or two wrong answers is one
    assert len(alignment) + len(direction) <= wrong <= len(alignment) + 2 * len(direction)
    assert all(m.keyed in ("yes", "no") and m.answered != m.keyed for m in alignment)
    assert all("Predicts:" in m.asked for m in alignment)
    assert all(m.keyed in ("lower", "higher", "same") for m in direction)
    assert f"### Missed questions ({len(poor.misses)})" in qualification.render(poor)
    document = json.loads(poor.model_dump_json())
    assert len(document["misses"]) == len(poor.misses)
