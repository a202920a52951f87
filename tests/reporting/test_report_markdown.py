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
    assert "| 1 | good | 100.0% |" in markdown and "| — | broken | n/a |" in markdown
    assert "Agreement with the human ranking" in markdown
    assert "Faults (3)" in markdown and "Errors (5)" in markdown


def test_fault_and_error_lists_are_capped_with_a_count(kit):
    markdown = render_markdown(build_report(_suite(kit, faults=5)), max_faults=2, max_errors=1)
    assert markdown.count("### ") == 2
    assert "and 3 more fault(s)" in markdown
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
