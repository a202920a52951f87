"""The null scorers every execution plants: run, reported apart, never ranked as candidates."""

from __future__ import annotations

import json

from suite_builders import build_suite
from typer.testing import CliRunner

from sane import api
from sane.cli import app
from sane.reporting import render_html, render_markdown
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
    # the default score: a scorer that never moves gets one half (it fails every case that
    # needs a move and passes every one that needs it to hold); careful passes both kinds,
    # spacey only the first, so it ties with the constant scorer
    scores = report.default_scores
    assert constant.default_score == scores["lazy"].value == scores["spacey"].value == 0.5
    assert (scores["lazy"].moves, scores["lazy"].holds) == (0.0, 1.0)
    assert scores["careful"].value == 1.0 and constant.place_by_default_score == 2

    # the markdown and HTML rankings show it, stability and sensitivity beside every ranked
    # target, and where the null scorers would rank
    markdown = render_markdown(report)
    ranking = markdown.split("## Ranking", 1)[1].split("###", 1)[0]
    assert "| default score [95% CI] (discriminating cases) | pass rate |" in ranking
    careful = next(line for line in ranking.splitlines() if "| careful |" in line)
    summary = report.targets["careful"]
    assert f"| careful | 1.000 {_ci(scores['careful'].ci)} (" in careful
    assert f"| {summary.stability:.3f} / {summary.sensitivity:.3f} |" in careful
    assert "null-constant would rank 3 by pass rate and 2 by default score, of 5" in ranking
    html = render_html(report)
    assert 'data-default-score="careful"' in html and "data-planted-note" in html
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


def _ci(ci: tuple[float, float]) -> str:
    return f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def test_cases_a_constant_scorer_passes_are_told_by_the_relation_not_by_its_kind_s_name():
    """`ordered` and `combined` predict a change yet pass ties: a constant scorer passes them,
    so they fall in the "holds" class of the default score, beside the invariances."""
    from types import SimpleNamespace

    from pydantic import TypeAdapter

    from sane.records import ExecutionRecord, Verdict
    from sane.relations import Relation
    from sane.reporting._planted import discriminating, outcomes_of

    relations = {
        "ord": {"kind": "ordered", "series": ["a", "b"]},
        "comb": {"kind": "combined"},
        "dec": {"kind": "decrease"},
        "spans": {"kind": "spans", "series": ["a", "b"]},
    }
    recipes = {
        rid: SimpleNamespace(
            id=rid,
            requirement=SimpleNamespace(value="r"),
            relation=TypeAdapter(Relation).validate_python(data),
        )
        for rid, data in relations.items()
    }
    context = SimpleNamespace(
        recipes=recipes,
        snapshot=SimpleNamespace(
            spec=SimpleNamespace(output=SimpleNamespace(higher_is_better=True)),
            recipes=list(recipes.values()),
            levels={},
        ),
    )
    context.discriminating = lambda *args: discriminating(context, *args)
    runs = [
        ExecutionRecord(target="t", case_id=rid, recipe_id=rid, scores={}, tolerance=0.0,
                        verdict=Verdict.passed)
        for rid in relations
    ]  # fmt: skip
    telling = {o.family: o.discriminating for o in outcomes_of(runs, context)}
    assert telling == {"ord": False, "comb": False, "dec": True, "spans": True}
