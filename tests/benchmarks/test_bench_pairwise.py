"""benchmarks/bench_pairwise.py runs and prints its figures (a small run: a few audits of 12
pairs, no sweeps, no Qwen); its rates are measured by the full run, not asserted here beyond
what a working audit must show: always-A found every time, nothing on the exact judge."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import bench_pairwise

KEYS = {
    "detection_rate",
    "false_finding_rate_exact",
    "false_bias_finding_rate_noisy",
    "finding_rates",
    "qwen_position_bias",
    "human_agreement",
    "power",
    "runs",
    "n",
    "data",
    "wall_s",
}


def _check(summary: dict, printed: str) -> None:
    assert json.loads(printed.strip().splitlines()[-1]) == summary
    assert set(summary) >= KEYS
    assert summary["detection_rate"]["position (always_a)"] == 1.0
    assert summary["detection_rate"]["verbosity (longer)"] == 1.0
    assert summary["false_finding_rate_exact"] == 0.0
    assert summary["qwen_position_bias"] is None  # off in --quick
    agreement = summary["human_agreement"]
    assert agreement["always_a"]["kappa"] == 0.0  # always A: chance agreement, no more
    assert agreement["exact"]["accuracy"] > agreement["always_a"]["accuracy"]
    assert "overlap-compared" in agreement  # a real scorer, built through build_target


@pytest.mark.skipif(
    not bench_pairwise.NQ301.is_file(),
    reason=f"NQ-301 is not at {bench_pairwise.NQ301} (../shared/data); the synthetic pairs "
    "are tested instead",
)
def test_the_benchmark_on_nq301_finds_always_a_and_spares_the_exact_judge(capsys) -> None:
    summary = bench_pairwise.main(["--quick", "--runs", "4"])
    _check(summary, capsys.readouterr().out)
    assert summary["data"] == "nq301"
    assert summary["human_agreement"]["always_a"]["decided"] == 1294


def test_the_benchmark_on_synthetic_pairs(capsys) -> None:
    summary = bench_pairwise.main(["--quick", "--synthetic", "--runs", "4"])
    _check(summary, capsys.readouterr().out)
    assert summary["data"] == "synthetic"


def test_the_planted_judges_read_content_not_form() -> None:
    planted = bench_pairwise.Planted(bench_pairwise.synthetic(), seed=0)
    q = "what is the capital of australia"
    good, bad = "The capital of Australia is Canberra.", "Sydney"
    record = {"question": q, "answer_a": good, "answer_b": bad}
    swapped = {"question": q, "answer_a": bad, "answer_b": good}
    assert planted.exact(record, 0) == 1.0 and planted.exact(swapped, 0) == -1.0
    assert planted.always_a(swapped, 0) == 1.0
    padded = {**record, "answer_b": bad + " " + "and so on " * 30}
    assert planted.longer(padded, 0) < planted.longer(record, 0)  # length pulls toward B
    praised = {**record, "answer_b": bad + " This answer is excellent."}
    assert planted.self_praise(praised, 0) < planted.self_praise(record, 0)
    tie = {"question": q, "answer_a": good, "answer_b": good}
    assert planted.exact(tie, 0) == 0.0 and planted.first_on_ties(tie, 0) == 1.0
