"""render_markdown: the sections, undefined numbers as n/a, capped lists, safe table cells."""

from __future__ import annotations

import re

from sane.reporting import build_report, render_markdown

Y = "yes"

SECTIONS = [
    "## Validity funnel",
    "## Targets",
    "## Ranking",
    "## By requirement",
    "## By capability",
    "## Threshold sensitivity",
    "## Faults",
    "## Errors",
    "## LLM calls",
]


def _suite(kit, faults: int = 3):
    plans = [kit.Plan("r", Y, [(Y, Y)] * 6, capability="cap | x")]
    runs = [kit.run("good", f"r/{i}", "pass") for i in range(6)]
    runs += [kit.run("bad", f"r/{i}", "fault" if i < faults else "pass") for i in range(6)]
    runs += [kit.run("broken", "r/0", "error", error="scorer crashed\nbadly")]
    errors = [{"stage": "alignment", "message": f"no majority {i}"} for i in range(4)]
    return kit.snapshot(plans, runs, cases_per_recipe=6, errors=errors)


def _row(markdown: str, first_cell: str) -> list[str]:
    line = next(line for line in markdown.splitlines() if line.startswith(f"| {first_cell} |"))
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]]


def test_sections_and_numbers(kit):
    report = build_report(_suite(kit), human={"good": 1.0, "bad": 0.5, "broken": 0.1})
    markdown = render_markdown(report)
    positions = [markdown.index(section) for section in SECTIONS]
    assert positions == sorted(positions)
    assert _row(markdown, "joint-valid cases") == ["joint-valid cases", "6"]
    good, bad, broken = _row(markdown, "good"), _row(markdown, "bad"), _row(markdown, "broken")
    assert good[1] == "100.0%" and bad[1] == "50.0%"
    assert broken[1] == "n/a" and broken[6] == "1"  # pass rate undefined, one error
    # ranked by the default score (one "decrease" family: its pass rate), pass rate beside;
    # 6/6 vs 3/6: p = 0.25 by either test
    assert "| 1= | good | 1.000 [1.000, 1.000] (6) | 100.0% | [61.0%, 100.0%] (Wilson) | 1= |" in (
        markdown
    )
    assert "| 1= | bad | 0.500 [0.167, 0.833] (6) | 50.0% |" in markdown
    assert "| — | broken | — | n/a |" in markdown
    assert "Agreement with the human ranking" in markdown
    assert "Faults (3)" in markdown and "Errors (5)" in markdown


def test_faults_are_cards_per_recipe_and_target_worst_case_first(kit):
    plans = [kit.Plan("r", Y, [(Y, Y)] * 8), kit.Plan("s", Y, [(Y, Y)] * 8)]
    gaps = [0.1, 0.6, 0.3, 0.0, 0.2, 0.5, 0.4, 0.05]
    scored = [{"original": [0.7], "perturbed": [0.7 - g]} for g in gaps]
    runs = [
        kit.run("bad", f"r/{i}", "fault", scores=s).model_copy(update={"normalised": s})
        for i, s in enumerate(scored)
    ]
    runs += [kit.run("bad", "s/0", "fault"), kit.run("worse", "s/1", "fault")]
    snapshot = kit.snapshot(plans, runs, cases_per_recipe=8)
    example = {"question": "Who wrote Hamlet?", "summary": "s"}
    cases = [c.model_copy(update={"example": example}) for c in snapshot.cases]
    markdown = render_markdown(build_report(snapshot.model_copy(update={"cases": cases})))
    assert "10 fault(s) in 3 card(s)" in markdown
    cards = re.split(r"^### (?=\d+\. )", markdown, flags=re.MULTILINE)[1:]
    assert [c.splitlines()[0] for c in cards] == [
        "1. bad: recipe r, 8 fault(s) in 8 case(s)",  # the recipe with most faults first
        "2. bad: recipe s, 1 fault(s) in 1 case(s)",
        "3. worse: recipe s, 1 fault(s) in 1 case(s)",
    ]
    first = cards[0]
    assert "worst case `r/1`, example #1, gap 0.600" in first  # the largest gap
    listed = re.findall(r"`(r/\d)`, gap", first)
    assert listed == ["r/5", "r/6", "r/2", "r/4"]  # then by gap, five cases a card
    assert "and 3 more case(s) in the JSON report" in first
    # the example's other fields (the question of a relevance judge) are on the card
    assert "`question` (context): Who wrote Hamlet?" in first


def test_fault_and_error_lists_are_capped_with_a_count(kit):
    plans = [kit.Plan(f"r{k}", Y, [(Y, Y)] * 2) for k in range(5)]
    runs = [kit.run("bad", f"r{k}/0", "fault") for k in range(5)]
    errors = [{"stage": "alignment", "message": f"no majority {i}"} for i in range(4)]
    snapshot = kit.snapshot(plans, runs, cases_per_recipe=2, errors=errors)
    markdown = render_markdown(build_report(snapshot), max_cards=2, max_errors=1)
    assert len(re.findall(r"^### \d+\. ", markdown, flags=re.MULTILINE)) == 2
    assert "and 3 more card(s)" in markdown
    assert "no majority 0" in markdown and "no majority 1" not in markdown
    assert "more errors in the JSON report" in markdown


def test_cells_cannot_break_tables(kit):
    markdown = render_markdown(build_report(_suite(kit)))
    assert "name of cap \\| x" in markdown
    assert "scorer crashed badly" in markdown
    for line in markdown.splitlines():
        if line.startswith("| bad | name of cap"):
            assert len(re.split(r"(?<!\\)\|", line)) == 9


def test_empty_suite_renders(kit):
    markdown = render_markdown(build_report(kit.snapshot([])))
    for section in SECTIONS:
        assert section in markdown
    assert "_No target was executed._" in markdown and "_No fault found._" in markdown
