"""`sane rank` against a human benchmark computed from a labelled data set."""

from __future__ import annotations

import json

from scipy import stats as sp
from suite_builders import build_suite
from typer.testing import CliRunner

from sane.analyses.human_alignment import human_benchmark
from sane.cli import app

RECORDS = [
    {"doc": "The council approved the park.", "text": "The council approved the park.", "ok": 1},
    {"doc": "Ana won the final.", "text": "Ana won the final UNSUPPORTED.", "ok": 0},
    {"doc": "The bakery closed.", "text": "The  bakery closed.", "ok": 1},
    {"doc": "Rain fell on Monday.", "text": "Snow fell UNSUPPORTED on Monday.", "ok": 0},
    {"doc": "Li retired.", "text": "Li retired to the coast.", "ok": 1},
]


def _data(path):
    path.write_text("".join(json.dumps({"meta": r}) + "\n" for r in RECORDS))
    return path


def test_benchmark_is_each_targets_auroc_against_the_labels(suite_dir, scripted):
    suite = build_suite(suite_dir, scripted, "a.db")
    data = _data(suite_dir / "labelled.jsonl")
    benchmark = human_benchmark(
        suite,
        data,
        label_field="meta.ok",
        binary=True,
        fields={"source": "meta.doc", "summary": "meta.text"},
        llm=scripted,
        trust_suite_code=True,
    )
    # careful separates the classes; lazy is constant (AUROC 1/2 by ties);
    # spacey also scores the double-spaced faithful record 2: U = (2*... ) by hand = 5/6
    assert benchmark.values["careful"] == 1.0
    assert benchmark.values["lazy"] == 0.5
    assert abs(benchmark.values["spacey"] - 5 / 6) < 1e-12
    assert benchmark.errors == {"broken": 5, "careful": 0, "lazy": 0, "spacey": 0}
    assert "broken" not in benchmark.values
    assert benchmark.agreement["broken"].note.startswith("undefined")
    # the labels' own reliability of the order: the three targets with a value (broken
    # failed every record, so it has none), on the five records all three scored
    reliability = benchmark.reliability
    assert reliability is not None and (reliability.targets, reliability.records) == (3, 5)


def test_graded_labels_use_spearman(suite_dir, scripted):
    suite = build_suite(suite_dir, scripted, "a.db")
    data = _data(suite_dir / "labelled.jsonl")
    benchmark = human_benchmark(
        suite,
        data,
        label_field="meta.ok",
        fields={"source": "meta.doc", "summary": "meta.text"},
        targets=["spacey"],
        llm=scripted,
        trust_suite_code=True,
    )
    scores = [5.0, 2.0, 2.0, 2.0, 5.0]
    expected = sp.spearmanr(scores, [r["ok"] for r in RECORDS]).statistic
    assert abs(benchmark.values["spacey"] - expected) < 1e-12


def test_rank_cli_with_human_data_prints_tables_and_json(suite_dir, scripted):
    suite = build_suite(suite_dir, scripted, "a.db")
    data = _data(suite_dir / "labelled.jsonl")
    args = [
        "rank",
        str(suite),
        "--trust-suite-code",
        "--human-data",
        str(data),
        "--label-field",
        "meta.ok",
        "--binary",
        "--field",
        "source=meta.doc",
        "--field",
        "summary=meta.text",
        "--script",
        str(suite_dir / "tiny_script.yaml"),
        "--cache",
        str(suite_dir / "cache.db"),
    ]
    runner = CliRunner()
    table = runner.invoke(app, args)
    assert table.exit_code == 0, table.output
    for text in ("Spearman rho", "Kendall tau-b", "auroc", "Per requirement", "kappa", "TPR",
                 "split-half reliability"):  # fmt: skip
        assert text in table.output
    assert "{" not in table.output  # a table, not a JSON dump
    document = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    alignment = document["human_alignment"]
    # pass rates careful 1.0 > spacey 0.6 > lazy 0.4; AUROC 1.0 > 5/6 > 0.5: same order
    assert alignment["spearman"] == 1.0 and alignment["kendall"] == 1.0
    assert alignment["human"] == {"careful": 1.0, "lazy": 0.5, "spacey": 5 / 6}
    assert alignment["reliability"]["targets"] == 3
    assert set(document["ranking_by_requirement"]) == {"monotonicity", "robustness"}


def test_rank_cli_rejects_bad_human_data_options(suite_dir, scripted):
    suite = build_suite(suite_dir, scripted, "a.db", execute=False)
    runner = CliRunner()
    missing = runner.invoke(app, ["rank", str(suite), "--human-data", str(suite_dir / "x.json")])
    assert missing.exit_code == 2 and "--label-field" in missing.output
    bad = runner.invoke(
        app, ["rank", str(suite), "--human-data", "x.json", "--label-field", "a", "--field", "oops"]
    )
    assert bad.exit_code == 2 and "SPEC_FIELD=DATA_COLUMN" in bad.output


def _wilson_low(hits: int, n: int, z: float = 1.959963984540054) -> float:
    """The Wilson score interval's lower bound, written out (Wilson 1927)."""
    p = hits / n
    centre = p + z * z / (2 * n)
    half = z * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5
    return (centre - half) / (1 + z * z / n)


def test_binary_labels_give_kappa_rates_certification_and_prevalence(suite_dir, scripted):
    """spacey scores [5, 2, 2, 2, 5] of 1-5 -> verdicts at 0.5 [1, 0, 0, 0, 1] against labels
    [1, 0, 1, 0, 1]: TPR 2/3, TNR 2/2, p_o = 4/5, p_e = 2/5*3/5 + 3/5*2/5 = 12/25, so
    kappa = (4/5 - 12/25) / (1 - 12/25) = 8/13; the Wilson lower bounds 0.208 and 0.342
    certify it at 0.2, not at 0.3; sane check gates on the same bound."""
    suite = build_suite(suite_dir, scripted, "a.db")
    data = _data(suite_dir / "labelled.jsonl")
    options = {
        "label_field": "meta.ok",
        "binary": True,
        "fields": {"source": "meta.doc", "summary": "meta.text"},
        "targets": ["spacey"],
        "llm": scripted,
        "trust_suite_code": True,
    }
    verdicts = human_benchmark(suite, data, **options, bar=0.2).agreement["spacey"].verdicts
    assert abs(verdicts.kappa - 8 / 13) < 1e-12
    assert (verdicts.tpr.hits, verdicts.tpr.n, verdicts.tnr.hits, verdicts.tnr.n) == (2, 3, 2, 2)
    assert abs(verdicts.tpr.lower - _wilson_low(2, 3)) < 1e-9
    assert abs(verdicts.tnr.lower - _wilson_low(2, 2)) < 1e-9
    assert verdicts.certification() == "certified at 0.2"
    # Rogan-Gladen on the suite's examples: (p + TNR - 1) / (TPR + TNR - 1) = p / (2/3)
    prevalence = verdicts.prevalence
    assert prevalence.records > 0
    assert abs(prevalence.corrected - min(1.0, prevalence.apparent * 1.5)) < 1e-12
    strict = human_benchmark(suite, data, **options, bar=0.3).agreement["spacey"].verdicts
    assert strict.certification() == "not certified at 0.3 (TPR lower bound 0.208)"

    args = ["check", str(suite), "--trust-suite-code", "--human-data", str(data)]
    args += ["--label-field", "meta.ok", "--binary", "--target", "spacey"]
    args += ["--field", "source=meta.doc", "--field", "summary=meta.text"]
    runner = CliRunner()
    passed = runner.invoke(app, [*args, "--min-certification", "0.2"])
    assert passed.exit_code == 0, passed.output
    failed = runner.invoke(app, [*args, "--min-certification", "0.3"])
    assert failed.exit_code == 5 and "human certification" in failed.output
