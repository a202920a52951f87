"""The validity benchmark's ground truth and its metrics, offline (scripted model)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import bench_validity
import reference_scorers as refs

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _examples(criterion: str) -> list[dict[str, str]]:
    path = refs.REFERENCES[criterion].spec.with_suffix(".jsonl")
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_references_compute_what_their_criterion_text_says() -> None:
    assert (
        refs.number_fidelity({"source": "It cost 48 dollars in 2019.", "summary": "48 or 49?"})
        == 0.5
    )
    assert refs.number_fidelity({"source": "", "summary": "no digits"}) == 1.0
    assert refs.number_fidelity({"source": "2,000 cars", "summary": "2000 cars"}) == 0.0
    assert refs.banned_words({"question": "", "reply": "Leverage the robust, ROBUST plan."}) == 0.25
    assert refs.banned_words({"question": "", "reply": "It utilizes robustness."}) == 1.0
    record = {"question": "Did Alice meet Bob in Paris?", "answer": "alice met Bob."}
    assert refs.question_names(record["question"]) == {"Alice", "Bob", "Paris"}
    assert refs.name_coverage(record) == pytest.approx(1 / 3)


@pytest.mark.parametrize("criterion", bench_validity.CRITERIA)
def test_every_mutant_differs_from_its_reference_somewhere(criterion: str) -> None:
    """A mutant equal to the reference on every record could never be killed."""
    probes = _examples(criterion)
    scored = refs.REFERENCES[criterion].scored
    probes += [
        {**r, scored: r[scored].replace(" ", "  ") + "\nMore text here for length."} for r in probes
    ]
    reference = refs.REFERENCES[criterion].score
    for name, mutant in refs.mutants(criterion).items():
        assert any(abs(mutant(r) - reference(r)) > 0.05 for r in probes), name


def test_spec_targets_resolve_to_the_scorers(tmp_path: Path) -> None:
    from sane.inputs import load_spec
    from sane.scorers.python_fn import resolve_ref

    spec, _ = load_spec(bench_validity.write_spec(tmp_path, "banned_words"))
    names = [t.name for t in spec.targets]
    assert names[0] == "reference" and len(names) == 1 + len(refs.mutants("banned_words")) >= 9
    record = _examples("banned_words")[1]
    assert resolve_ref(spec.targets[0].ref, "ref")(record) == refs.banned_words(record)


def test_a_yes_always_panel_is_exposed_by_the_benchmark(tmp_path: Path, capsys) -> None:
    argv = [
        "--quick",
        "--out",
        str(tmp_path),
        "--model",
        "scripted",
        "--criteria",
        "number_fidelity",
    ]
    argv += [
        "--script",
        str(FIXTURES / "validity_script.yaml"),
        "--generators",
        "derived",
        "fixed:jrh",
        "--panels",
        "contrastive",
        "plain",
        "blind",
    ]
    result = bench_validity.main(argv)
    assert result["default"] == "derived/contrastive"
    assert set(result) == {"default"} | {
        f"{g}/{p}" for g in ("derived", "fixed:jrh") for p in ("contrastive", "plain", "blind")
    }
    for key in ("derived/plain", "fixed:jrh/plain"):
        entry = result[key]
        assert entry["control_false_accept"] == 1.0  # it said yes to every known-wrong item
        assert entry["validated_families"] > 0
    # jrh's label-flip and paraphrase cases carry a fixed text unrelated to the example: invalid
    # tests the yes-always panel validated, so the exact reference "fails" some of them ...
    assert result["fixed:jrh/plain"]["reference_false_fault_rate"] > 0
    # a blind "same" answer cannot accept jrh's label flip (a decrease), and the blind panel's
    # decoy check refuses the model-written cases of a panel that accepts any instruction
    # (paraphrase, two verbosity recipes): only the families made by code remain, and with
    # them none of the reference's false faults
    blind, plain = result["fixed:jrh/blind"], result["fixed:jrh/plain"]
    assert blind["validated_families"] == plain["validated_families"] - 4
    assert blind["reference_false_fault_rate"] == 0.0
    # ... while its whitespace transforms are valid tests that catch the formatting mutant.
    cell = json.loads((tmp_path / "quick/cells/number_fidelity/fixed-jrh-plain.json").read_text())
    assert cell["killed"]["formatting"] is True
    assert cell["killed"]["first_number_only"] is False
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1]) == result
    # a rerun resumes from the finished cells and reproduces the figures
    assert bench_validity.main(argv) == result


def test_the_quick_plan_runs_every_panel_on_derived_and_the_default_on_fixed_sets() -> None:
    entries = bench_validity.QUICK.entries()
    assert [p for g, p in entries if g == "derived"] == ["contrastive", "plain", "blind"]
    assert [p for g, p in entries if g == "fixed:jrh"] == ["contrastive"]
    assert entries[0] == ("derived", "contrastive")  # the agent's calls are paid once, first


def test_a_panel_that_validates_nothing_scores_nothing(tmp_path: Path) -> None:
    script = tmp_path / "no.yaml"
    rules = (
        (FIXTURES / "validity_script.yaml").read_text().replace('decision: "yes"', 'decision: "no"')
    )
    script.write_text(rules)
    argv = ["--quick", "--out", str(tmp_path), "--model", "scripted", "--script", str(script)]
    result = bench_validity.main([*argv, "--generators", "derived", "--panels", "plain"])
    entry = result["derived/plain"]
    assert entry["validated_families"] == 0
    assert entry["mutation_score"] == 0.0  # no mutant found: a suite of nothing finds nothing
    assert entry["reference_false_fault_rate"] is None  # and nothing ran to be wrong about
    assert entry["oracle_calls_per_validated_family"] is None
    assert entry["ladder_spearman"] is None
    assert entry["control_false_accept"] is None  # an invariance recipe has no mirror control
