"""The whole pipeline on simulated oracles: a perfect one is exact, a constant one is caught.

The operator grid proposes every code edit under every pair direction (most wrong for the
criterion), so the panel has something to reject; the reference scorer is exact, so each of
its faults is an invalid test that got through."""

from __future__ import annotations

from pathlib import Path

import pytest

from sane import api
from sane.llm import LLMSettings
from sane.pipeline.run_config import run_config
from tests.simulation.sim_helpers import oracle, oracle_sweep, refs, sweep_spec


@pytest.mark.parametrize("panel", ["contrastive", "blind"])
def test_a_perfect_simulated_oracle_gives_zero_reference_faults(tmp_path: Path, panel: str) -> None:
    spec = sweep_spec(tmp_path, "banned_words")
    job = {
        "out": str(tmp_path),
        "criterion": "banned_words",
        "spec": str(spec),
        "panel": panel,
        "accuracy": 1.0,
        "correlation": 0.0,
        "seed": 0,
        "generator": "operators",
        "model": None,
    }
    cell = oracle_sweep.run_cell(job)
    assert cell.reference_cases > 50 and cell.reference_faults == 0
    assert cell.controls_items > 40 and cell.controls_wrong == 0 and not cell.controls_failed
    assert cell.wrong_validated == 0 and cell.right_validated > 10 and cell.no_truth == 0
    assert oracle_sweep.run_cell(job) == cell  # a finished cell is read back, not rerun


def test_a_constant_oracle_lets_wrong_tests_through_and_fails_its_controls(tmp_path: Path) -> None:
    spec = sweep_spec(tmp_path, "number_fidelity")
    constant = oracle("number_fidelity", accuracy=1.0, bias=1.0)  # "yes" / "lower" to everything
    config = run_config(
        model=constant, oracle_models=[constant], cases=3, generator="operators", panel="plain"
    )
    settings = LLMSettings(cache_path=tmp_path / "cache.db")
    suite = tmp_path / "suite.db"
    snapshot = api.generate(spec, suite=suite, config=config, llm=settings)
    (stored,) = snapshot.config.oracle_models  # the truth it answered from, named in the suite
    assert f"spec={spec.resolve()}" in stored and "examples=" in stored
    api.execute(suite, llm=settings, trust_suite_code=True, targets=["reference"])
    report = api.report(suite)
    assert report.targets["reference"].faults > 0
    assert report.validity.controls is not None and report.validity.controls.failed


def _entry(**figures: float) -> dict:
    good = {
        "reference_false_fault_rate": 0.0,
        "control_false_accept": 0.05,
        "mutation_score": 0.9,
        "ladder_spearman": 1.0,
        "right_recipe_recall": 0.9,
        "oracle_calls_per_validated_family": 40.0,
    }
    return {**good, **figures}


def test_the_threshold_is_the_lowest_accuracy_from_which_on_every_target_is_met() -> None:
    table = {
        "plain/1/0.2": _entry(),
        "plain/0.95/0.2": _entry(),
        "plain/0.85/0.2": _entry(reference_false_fault_rate=0.08),
        "plain/0.75/0.2": _entry(),  # met again below a miss: not a threshold
        "blind/1/0.2": _entry(right_recipe_recall=None),
    }
    found = oracle_sweep.thresholds(table, ["plain", "blind"], [0.75, 0.85, 0.95, 1.0], 0.2)
    assert found == {"plain": 0.95, "blind": None}


def test_the_checks_name_inexact_perfect_suites_and_count_bad_suites_that_passed() -> None:
    def cell(accuracy: float, faults: int, failed: bool) -> oracle_sweep.SweepCell:
        return oracle_sweep.SweepCell(
            criterion="c",
            panel="plain",
            accuracy=accuracy,
            correlation=0.0,
            seed=0,
            validated_families=1,
            reference_cases=10,
            reference_faults=faults,
            killed={},
            ladder={},
            controls_wrong=0,
            controls_items=1,
            controls_failed=failed,
            right_proposed=1,
            right_validated=1,
            wrong_validated=0,
            no_truth=0,
            oracle_calls=1,
            wall_s=0.0,
        )

    found = oracle_sweep.checks([cell(1.0, 1, False), cell(0.55, 3, True), cell(0.55, 0, False)])
    assert found["perfect_oracle_inexact"] == ["c/plain/c0/s0"]
    assert (found["bad_suites"], found["bad_suites_with_passing_controls"]) == (2, 1)


def test_a_difficulty_is_its_own_setting_and_leaves_the_plain_one_as_it_was() -> None:
    truth = refs.ref("number_fidelity", "reference")
    plain = oracle_sweep.oracle_string("number_fidelity", 0.85, 0.2)
    assert plain == f"sim/accuracy=0.85,correlation=0.2,bias=0,truth={truth}"
    hard = oracle_sweep.oracle_string("number_fidelity", 0.85, 0.2, 0.3)
    assert hard == f"sim/accuracy=0.85,correlation=0.2,bias=0,difficulty=0.3,truth={truth}"
    table = {
        "plain/1/0.2": _entry(),
        "plain/0.85/0.2": _entry(),
        "plain/1/0.2/d0.3": _entry(),
        "plain/0.85/0.2/d0.3": _entry(control_false_accept=0.12),
    }
    assert oracle_sweep.thresholds(table, ["plain"], [0.85, 1.0], 0.2) == {"plain": 0.85}
    assert oracle_sweep.thresholds(table, ["plain"], [0.85, 1.0], 0.2, 0.3) == {"plain": 1.0}
