"""The null scorers every execution plants: run, reported apart, never ranked as candidates."""

from __future__ import annotations

import json

from suite_builders import build_suite
from typer.testing import CliRunner

from sane import api
from sane.cli import app
from sane.scorers.null_scorers import NULL_SCORERS


def test_execute_plants_the_null_scorers_and_the_report_places_them_apart(suite_dir, scripted):
    suite = build_suite(suite_dir, scripted, "a.db")
    report = api.report(suite)
    planted = report.planted_targets
    nulls = {f"null-{name}" for name in NULL_SCORERS}
    assert {s.target for s in planted.scorers} == nulls
    assert not nulls & set(report.targets) and not nulls & {e.target for e in report.ranking}
    assert all(s.candidates == len(report.targets) for s in planted.scorers)
    # lazy scores a constant too, so the planted constant scorer passes what lazy passes
    constant = next(s for s in planted.scorers if s.target == "null-constant")
    assert constant.pass_rate == report.targets["lazy"].pass_rate == planted.constant_pass_share
    assert set(report.default_scores) == set(report.targets)
    # lazy is a constant scorer too: no paired test separates it from null-constant, and its
    # headline says so first. Neither is careful (1.0 against 0.4) on 5 judged cases: its 3
    # discordant cases give McNemar's exact p = 0.25, so a suite this small shows nothing.
    assert planted.not_shown_better == ["careful", "lazy", "spacey"]  # broken: no judged case
    lazy = next(t for t in report.findings.targets if t.target == "lazy")
    assert lazy.headline.startswith("lazy: not shown better than a scorer that never moves")

    args = ["check", str(suite), "--require-better-than-constant", "--json"]
    gate = CliRunner().invoke(app, [*args, "--target", "careful", "--target", "lazy"])
    assert gate.exit_code == 5
    values = {c["target"]: c["value"] for c in json.loads(gate.stdout)["checks"]}
    assert values == {"careful": 0.0, "lazy": 0.0}
