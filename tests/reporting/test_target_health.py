"""Errors and flat judges in every ranking (issue 55, item 3): a target that failed most of
its cases is listed "not ranked: N of M ...", never tied first; one whose scores barely move
is flagged with its spread and sensitivity."""

from __future__ import annotations

from sane.reporting import build_report, render_markdown


def _snapshot(kit):
    cases = 8
    plans = [kit.Plan("r", kit.Y, [(kit.Y, kit.Y)] * cases)]
    runs = []
    for i in range(cases):
        # a judge that scores: passes every case, its scores follow the text
        moving = {"original": [0.3 + 0.08 * i], "perturbed": [0.1 + 0.05 * i]}
        runs.append(kit.run("good", f"r/{i}", "pass", scores=moving))
        # a judge that failed 6 of 8 calls; passes the 2 it answered
        if i < 6:
            runs.append(kit.run("failing", f"r/{i}", "error", error="score 12 outside 0-1"))
        else:
            runs.append(kit.run("failing", f"r/{i}", "pass", scores=moving))
        # a judge that gives every original the same score
        runs.append(
            kit.run("flat", f"r/{i}", "pass", scores={"original": [0.8], "perturbed": [0.75]})
        )
    return kit.snapshot(plans, runs, cases_per_recipe=cases)


def test_a_target_failing_most_cases_is_not_ranked_and_says_why(kit):
    report = build_report(_snapshot(kit))
    entries = {e.target: e for e in report.ranking}
    failing = entries["failing"]
    assert failing.rank is None and failing.errors == 6
    assert failing.note.startswith("not ranked: 6 of 8 case executions failed (score 12")
    assert report.ranking[-1].target == "failing"  # after every ranked target
    assert entries["good"].rank == 1 and entries["good"].errors == 0


def test_a_target_whose_scores_barely_move_is_flagged(kit):
    report = build_report(_snapshot(kit))
    entries = {e.target: e for e in report.ranking}
    assert report.health["flat"].flat and not report.health["good"].flat
    assert entries["flat"].note.startswith("scores barely move: spread 0.00 over 8 examples")
    assert entries["good"].note is None


def test_markdown_ranking_has_an_error_column_and_the_notes(kit):
    markdown = render_markdown(build_report(_snapshot(kit)))
    header = (
        "| rank | target | default score [95% CI] (discriminating cases) | pass rate | 95% CI "
        "| pass-rate rank | stability / sensitivity |"
    )
    assert header + " judged cases | errors |" in markdown
    assert "not ranked: 6 of 8 case executions failed" in markdown
    assert "scores barely move" in markdown


def test_rank_tables_have_an_error_column_and_say_why_a_target_is_not_ranked(kit):
    from rich.console import Console

    from sane.cli._report import rank_tables, summary_renderables

    report = build_report(_snapshot(kit))
    console = Console(width=100, record=True, file=__import__("io").StringIO())
    for table in rank_tables(report):
        console.print(table)
    text = console.export_text()
    assert "errors" in text and "failing: not ranked: 6 of 8" in " ".join(text.split())
    for line in summary_renderables(report):
        console.print(line)
    summary = " ".join(console.export_text().split())
    assert "Wilson 95%" not in summary  # one interval: the ranking's (item 6)


def test_one_pass_rate_has_one_interval_in_the_markdown(kit):
    plans = [kit.Plan("r", kit.Y, [(kit.Y, kit.Y)] * 10)]
    runs = [kit.run("half", f"r/{i}", "pass" if i % 2 else "fault") for i in range(10)]
    report = build_report(kit.snapshot(plans, runs, cases_per_recipe=10))
    entry, summary = report.ranking[0], report.targets["half"]
    assert entry.ci_method == "bootstrap" and entry.ci != summary.pass_rate_ci
    markdown = render_markdown(report)
    shown = f"[{entry.ci[0]:.1%}, {entry.ci[1]:.1%}]"
    wilson = f"[{summary.pass_rate_ci[0]:.1%}, {summary.pass_rate_ci[1]:.1%}]"
    # the Targets table and the ranking show the same interval, and only that one
    assert f"| half | 50.0% | {shown} | 10 |" in markdown and wilson not in markdown
