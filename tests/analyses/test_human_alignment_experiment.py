"""experiments/human_alignment.py runs end to end on the scripted model."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from test_rank_human_data import RECORDS

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "human_alignment.py"


def _module():
    spec = importlib.util.spec_from_file_location("human_alignment", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_experiment_prints_the_rank_correlation_with_an_interval(suite_dir, capsys):
    data = suite_dir / "labelled.jsonl"
    data.write_text("".join(json.dumps({"meta": r}) + "\n" for r in RECORDS))
    out = suite_dir / "result.json"
    code = _module().main(
        [
            "--spec", str(suite_dir / "tiny-faithfulness.yaml"),
            "--model", "scripted",
            "--script", str(suite_dir / "tiny_script.yaml"),
            "--data", str(data),
            "--label-field", "meta.ok",
            "--binary",
            "--field", "source=meta.doc",
            "--field", "summary=meta.text",
            "--target", "careful", "--target", "spacey", "--target", "lazy",
            "--cases", "4", "--tau", "2", "--capabilities", "2", "--recipes", "2",
            "--suite", str(suite_dir / "exp.db"),
            "--cache", str(suite_dir / "cache.db"),
            "--limit", "5",
            "--out", str(out),
        ]
    )  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "rank correlation over 3 targets: Spearman 1.000 [" in printed
    result = json.loads(out.read_text())
    assert result["alignment"]["kendall"] == 1.0
    assert result["pass_rates"]["careful"] == 1.0
    assert result["human"]["values"]["careful"] == 1.0
