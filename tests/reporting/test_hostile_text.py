"""Text from a suite (model-written names, descriptions and case texts; names chosen by whoever
sent the suite) is shown, never obeyed: no escape sequence reaches a terminal raw (`sane report`
summary, `rank`, `check`, `say`), and no markdown construct renders in the markdown report or
the gate (a tracking image, a link, a heading, emphasis, code).

Before the fix, `report --format summary` printed a recipe name's ESC sequences as they were
(screen clear, window title), and the markdown report turned `![x](http://host/beacon.png)`
in a case into an image wherever it was rendered.
"""

from __future__ import annotations

import io
import re

import pytest
from markdown_it import MarkdownIt
from typer.testing import CliRunner

from sane.reporting import build_report, render_gate, render_markdown

Y = "yes"
ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x9b31m"  # window title, screen clear, 8-bit CSI
ACTIVE = (
    "![x](http://evil.example/beacon.png) [click](http://evil.example/c) "
    "<http://evil.example/auto> http://evil.example/bare www.evil.example/w "
    "`tick` *star* _under_ ~~gone~~ <img src=x> [ref]: http://evil.example/r"
)
HOSTILE = f"{ESCAPES} {ACTIVE}"
TARGET = "bad\x1b[2J![t](http://evil.example/t.png)"


def _hostile_report(kit):
    """A suite whose every generated text (and a target's name) is hostile, with faults so the
    recipe, its capability and its cases reach every section."""
    plans = [kit.Plan("r", Y, [(Y, Y)] * 4)]
    runs = [kit.run(TARGET, f"r/{i}", "fault") for i in range(4)]
    runs += [kit.run("good", f"r/{i}", "pass") for i in range(4)]
    snapshot = kit.snapshot(plans, runs)
    leads = ["# heading", "> quote", "- item", "1. item"]
    update = {
        "recipes": [r.model_copy(update={"name": HOSTILE}) for r in snapshot.recipes],
        "capabilities": [
            c.model_copy(update={"name": f"# {HOSTILE}", "description": HOSTILE})
            for c in snapshot.capabilities
        ],
        "cases": [
            c.model_copy(
                update={
                    "variants": {r: f"{leads[c.index]} {r} {HOSTILE}" for r in c.variants},
                    "example": {"summary": f"{leads[c.index]}\n{HOSTILE}"},
                }
            )
            for c in snapshot.cases
        ],
        "spec": snapshot.spec.model_copy(update={"name": f"scorer {HOSTILE}"}),
    }
    return build_report(snapshot.model_copy(update=update))


def _renderers() -> list[MarkdownIt]:
    """CommonMark with GFM tables, and the GFM-like preset that also links bare URLs and
    `www.` (as GitHub does) where linkify-it-py is installed."""
    found = [MarkdownIt("commonmark").enable("table").enable("strikethrough")]
    try:
        found.append(MarkdownIt("gfm-like"))
    except ModuleNotFoundError:  # linkify-it-py absent: commonmark alone
        pass
    return found


def _assert_inert(markdown: str) -> None:
    assert "\x1b" not in markdown and "\x07" not in markdown and "\x9b" not in markdown
    for renderer in _renderers():
        page = renderer.render(markdown)
        assert "<img" not in page, page
        assert "<a href" not in page, page
        assert "<em>star" not in page and "<em>under" not in page and "<del>" not in page
        assert "<code>tick</code>" not in page
        assert not re.search(r"<h\d>[^<]*heading", page), page
        assert not re.search(r"<blockquote>\s*<p>quote", page), page
        assert not re.search(r"<li>item", page), page


def test_markdown_report_renders_no_generated_markdown(kit) -> None:
    markdown = render_markdown(_hostile_report(kit))
    assert markdown.count("evil.example/beacon.png") >= 3  # the texts are shown, as text
    _assert_inert(markdown)


def test_gate_summary_renders_no_generated_markdown(kit) -> None:
    from sane.reporting import Limits, evaluate

    report = _hostile_report(kit)
    _assert_inert(render_gate(report, evaluate(report, Limits(max_faults=0), None)))


@pytest.mark.parametrize(
    "argv",
    [
        ["report", "suite.db", "--format", "summary"],
        ["report", "suite.db", "--format", "md"],
        ["rank", "suite.db"],
        ["check", "suite.db", "--max-faults", "0"],
    ],
    ids=["report summary", "report md", "rank", "check"],
)
def test_no_escape_sequence_reaches_the_terminal(
    kit, monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    from sane import api
    from sane.cli import app

    report = _hostile_report(kit)
    monkeypatch.setattr(api, "report", lambda *args, **kwargs: report)
    result = CliRunner().invoke(app, argv)
    assert result.exit_code in (0, 5), result.output
    shown = result.stdout + result.stderr
    for raw in ("\x1b", "\x07", "\x9b"):
        assert raw not in shown, repr(shown)
    assert "\\x1b" in shown  # written as an escape: visible, inert


def test_plain_lines_and_table_cells_are_printable() -> None:
    """The CLI's consoles escape every string they render: `say` lines (progress lines
    included), table titles and cells; the line breaks of a multi-line text stay."""
    from rich.table import Table

    from sane.cli._common import TerminalConsole, say

    console = TerminalConsole(file=io.StringIO(), width=200)
    say(f"stage {ESCAPES}: 1/2\nsecond line", to=console)
    table = Table(title=f"title {ESCAPES}")
    table.add_column(f"column {ESCAPES}")
    table.add_row(f"cell {ESCAPES}")
    console.print(table)
    shown = console.file.getvalue()
    assert "\x1b" not in shown and "\x07" not in shown and "\x9b" not in shown
    assert shown.count("\\x1b") >= 4 and "1/2\nsecond line" in shown
