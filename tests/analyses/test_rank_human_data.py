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
    for text in ("Spearman rho", "Kendall tau-b", "auroc", "Per requirement", "monotonicity"):
        assert text in table.output
    assert "{" not in table.output  # a table, not a JSON dump
    document = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    alignment = document["human_alignment"]
    # pass rates careful 1.0 > spacey 0.6 > lazy 0.4; AUROC 1.0 > 5/6 > 0.5: same order
    assert alignment["spearman"] == 1.0 and alignment["kendall"] == 1.0
    assert alignment["human"] == {"careful": 1.0, "lazy": 0.5, "spacey": 5 / 6}
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
