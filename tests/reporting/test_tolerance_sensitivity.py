"""The report checks every counted case again under other tolerance bars (absolute floors,
shares of each target's spread), from the stored scores (`tolerance_sensitivity`): how much the ranking's order rests on that bar."""

from __future__ import annotations

import yaml
from suite_builders import build_suite
from typer.testing import CliRunner

import sane
from sane import api
from sane.cli import app
from sane.reporting import render_html, render_markdown
from sane.reporting._tolerance import FLOORS, SPREAD_SHARES


def _with_subtle(suite_dir):
    spec_path = suite_dir / "tiny-faithfulness.yaml"
    spec = yaml.safe_load(spec_path.read_text())
    spec["targets"] = [t for t in spec["targets"] if t["name"] != "broken"] + [
        {"name": "subtle", "kind": "python", "ref": "suite_targets:subtle"}
    ]
    spec_path.write_text(yaml.safe_dump(spec))


def test_each_bar_reproduces_a_run_under_it_without_a_call(suite_dir, scripted):
    _with_subtle(suite_dir)
    suite = build_suite(suite_dir, scripted, "a.db", execute=False)
    run = {"llm": scripted, "timeout_s": 5, "trust_suite_code": True}
    sane.execute(suite, **run, tolerance_floor=0.05, tolerance_spread=0)  # the old default bar
    report = api.report(suite)
    section = report.tolerance_sensitivity
    assert section is not None and section.run_floors == [0.05]
    assert section.run_spread_shares == [0.0]
    rows = {(row.floor, row.spread_share): row for row in section.floors}
    assert set(rows) == {(f, 0.0) for f in FLOORS} | {(0.0, s) for s in SPREAD_SHARES}
    # the run's own bar gives back the ranking's default scores: the same check, redone
    own = rows[(0.05, 0.0)]
    assert own.default_scores == {n: s.value for n, s in report.default_scores.items()}
    assert own.kendall == 1.0 and own.null_places["null-constant"] is not None
    # subtle sees every unsupported claim by 0.025: a fault at 0.05, a pass at 0.02 and below
    assert own.default_scores["subtle"] < own.default_scores["careful"] == 1.0
    assert (
        rows[(0.02, 0.0)].default_scores["subtle"]
        == rows[(0.0, 0.0)].default_scores["subtle"]
        == 1.0
    )
    assert (
        rows[(0.1, 0.0)].default_scores["careful"] == 1.0
    )  # careful moves by 0.75: any floor here
    # subtle scores every original alike (spread 0): a share of its spread is no bar at all
    assert rows[(0.0, 0.2)].default_scores["subtle"] == 1.0
    assert rows[(0.0, 0.1)].label == "0.1 x spread" and own.label == "0.05"

    # executing again under the default bar (floor 0, a tenth of the spread) gives what the
    # section computed for it
    said: list[str] = []
    sane.execute(suite, **run, notice=said.append)
    assert len(said) == 4 + 3  # the candidates and the null scorers, run again
    again = api.report(suite)
    assert {n: s.value for n, s in again.default_scores.items()} == rows[(0.0, 0.1)].default_scores
    assert again.tolerance_sensitivity.run_floors == [0.0]
    assert again.tolerance_sensitivity.run_spread_shares == [0.1]

    # every format says it; a warning only where some floor's order parts from the ranking's
    unstable = [r for r in section.floors if r.kendall is not None and r.kendall < 0.5]
    warned = any("rests on the tolerance" in w for w in report.warnings)
    assert warned == bool(unstable)
    sentence = section.sentence()
    assert sentence.startswith("Tolerance (this run: floor 0.05, spread share 0)")
    assert sentence in render_markdown(report).replace("\n", " ")
    assert "data-tolerance-sensitivity" in render_html(report)
    shown = CliRunner().invoke(app, ["rank", str(suite), "--json"])
    assert shown.exit_code == 0, shown.output
    assert '"tolerance_sensitivity"' in shown.stdout
