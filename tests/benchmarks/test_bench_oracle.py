"""The oracle benchmark's ground truth and figures, offline (scripted oracles)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import bench_oracle
import reference_scorers as refs


def test_every_pair_is_labelled_by_its_reference_score_change() -> None:
    probe = bench_oracle.pairs(list(refs.REFERENCES))
    assert len(probe) > 50
    labels = {p.label for p in probe}
    assert labels == {"lower", "higher", "same"}
    for pair in probe:
        assert pair.case.variants["original"] != pair.case.variants["perturbed"]
        score = refs.REFERENCES[pair.criterion].score
        field = pair.spec.scored_field
        before = score(pair.case.example)
        after = score({**pair.case.example, field: pair.case.variants["perturbed"]})
        assert (after < before) == (pair.label == "lower")
        assert (after > before) == (pair.label == "higher")
    # a number changed in a summary whose numbers all come from the source lowers fidelity
    changed = [
        p for p in probe if p.criterion == "number_fidelity" and p.operator == "change_number"
    ]
    assert changed and all(p.label == "lower" for p in changed)


def _run(tmp_path: Path, rules: list[dict]) -> dict:
    script = tmp_path / "oracle.yaml"
    script.write_text(yaml.safe_dump({"rules": rules}))
    return bench_oracle.main(
        ["--model", "scripted", "--script", str(script), "--out", str(tmp_path)]
    )


def test_a_constant_lower_oracle_is_never_order_consistent(tmp_path: Path) -> None:
    rules = [{"task": "vote:direction", "response": {"answer": "lower", "rationale": "always"}}]
    result = _run(tmp_path, rules)
    probe = bench_oracle.pairs(list(refs.REFERENCES))
    lower = sum(p.label == "lower" for p in probe) / len(probe)
    assert result["pairs"] == len(probe) and result["failed_calls"] == 0
    assert result["accuracy"] == pytest.approx(lower, abs=1e-3)
    assert result["top_answer_share"] == 1.0 and result["order_consistency"] == 0.0
    # one answer as asked accepts every decrease claim, right or wrong; the check accepts none
    assert result["accept_wrong_single"] > 0.3
    assert result["accept_wrong_checked"] == 0.0 and result["accept_right_checked"] == 0.0


def test_an_oracle_that_reads_the_order_is_consistent_and_a_failed_call_is_not_an_answer(
    tmp_path: Path,
) -> None:
    """ "same" for whitespace edits, "lower" for everything else as asked and "higher" with the
    texts exchanged; the calls of one criterion fail."""
    rules = [
        {"task": "vote:direction", "contains": "number-fidelity", "error": "down"},
        {
            "task": "vote:direction",
            "contains": "  ",
            "response": {"answer": "same", "rationale": "-"},
        },
        {
            "task": "vote:direction",
            "contains": ', the "perturbed" text',
            "response": {"answer": "lower", "rationale": "-"},
        },
        {"task": "vote:direction", "response": {"answer": "higher", "rationale": "-"}},
    ]
    result = _run(tmp_path, rules)
    failed = [
        p for p in bench_oracle.pairs(list(refs.REFERENCES)) if p.criterion == "number_fidelity"
    ]
    assert result["failed_calls"] == len(failed) > 0
    assert result["order_consistency"] == 1.0
    assert 0 < result["accept_wrong_checked"] == result["accept_wrong_single"] < 1


def test_same_keeps_every_pair_that_moves_and_samples_the_rest(tmp_path: Path) -> None:
    script = tmp_path / "oracle.yaml"
    rules = [{"task": "vote:direction", "response": {"answer": "same"}}]
    script.write_text(yaml.safe_dump({"rules": rules}))
    argv = ["--model", "scripted", "--script", str(script), "--out", str(tmp_path), "--same", "3"]
    result = bench_oracle.main([*argv, "--no-vote-rationale"])
    moved = sum(p.label != "same" for p in bench_oracle.pairs(list(refs.REFERENCES)))
    assert result["pairs"] == moved + 3 and result["vote_rationale"] is False
    assert result["accuracy"] == pytest.approx(3 / (moved + 3), abs=1e-3)
