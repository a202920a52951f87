"""`sane demo` end to end on the scripted model: files written, summary printed, replay identical."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import yaml
from typer.testing import CliRunner

from sane.cli import app
from sane.suites.content import suite_content

runner = CliRunner()


def _demo(
    workdir: Path, out: str, script: str = "tiny_script.yaml", *extra: str
) -> tuple[int, str, str]:
    result = runner.invoke(
        app,
        [
            "demo",
            "--spec",
            str(workdir / "tiny_spec.yaml"),
            "--model",
            "scripted",
            "--script",
            str(workdir / script),
            "--target",
            "careful",
            "--target",
            "lazy",
            "--out",
            str(workdir / out),
            "--cache",
            str(workdir / "cache.db"),
            "--quiet",
            *extra,
        ],
    )
    return result.exit_code, result.stdout, result.stderr


def test_demo_writes_the_suite_and_three_reports_and_prints_the_ranking(workdir: Path):
    code, stdout, stderr = _demo(workdir, "demo")
    assert code == 0, stderr
    out = workdir / "demo"
    for name in ("suite.db", "report.json", "report.md", "report.html"):
        assert (out / name).stat().st_size > 0, name
    report = json.loads((out / "report.json").read_text())
    funnel = report["validity"]
    assert "validity:" in stdout and f"{funnel['validated_families']} validated" in stdout
    assert funnel["validated_families"] >= 1
    # careful follows the criterion, lazy returns a constant: the ranking must say so.
    ranks = {entry["target"]: entry["rank"] for entry in report["ranking"]}
    order = [entry["target"] for entry in report["ranking"]]
    assert order.index("careful") < order.index("lazy")
    pair = next(c for c in report["comparisons"] if {c["a"], c["b"]} == {"careful", "lazy"})
    assert pair["only_a_passes" if pair["a"] == "careful" else "only_b_passes"] > 0
    # a strictly better rank only where the paired test separates them
    assert (ranks["careful"] < ranks["lazy"]) == pair["significant"]
    assert report["targets"]["lazy"]["faults"] > 0 and report["targets"]["careful"]["faults"] == 0
    assert str(out / "report.html") in stdout


def test_demo_votes_give_their_answer_alone(workdir: Path):
    """The demo asks the panel for answers without rationales (its CPU time on the embedded
    model), and says so, and the seed it was given, in the configuration stored with the
    suite."""
    assert _demo(workdir, "demo", "tiny_script.yaml", "--seed", "3")[0] == 0
    with sqlite3.connect(workdir / "demo" / "suite.db") as db:
        config = json.loads(db.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()[0])
        rationales = {r for (r,) in db.execute("SELECT rationale FROM votes")}
    assert config["vote_rationale"] is False and config["seed"] == 3
    assert rationales == {""}


def test_a_second_demo_from_the_same_cache_generates_the_same_suite(workdir: Path):
    assert _demo(workdir, "first")[0] == 0
    assert _demo(workdir, "second")[0] == 0
    first = suite_content(workdir / "first" / "suite.db")
    assert first["recipes"] and first["votes"]
    assert first == suite_content(workdir / "second" / "suite.db")


def test_a_demo_that_validates_nothing_says_so_and_runs_no_target(workdir: Path):
    script = yaml.safe_load((workdir / "tiny_script.yaml").read_text())
    rules = [r for r in script["rules"] if not str(r["task"]).startswith("vote:")]
    rules.append({"task": "vote:alignment", "response": {"decision": "no", "rationale": "-"}})
    (workdir / "always_no.yaml").write_text(yaml.safe_dump({"rules": rules}))
    code, stdout, stderr = _demo(workdir, "none", "always_no.yaml")
    assert code == 0, stderr
    assert "0 validated families" in stdout
    assert "targets: none run (no family was validated" in stdout
    assert json.loads((workdir / "none" / "report.json").read_text())["ranking"] == []
