"""The comparison audit in every format of the report: its findings first (right after the
panel's findings, before the suite and the funnel), then each target's checks with their
statistic, value, interval, n, placebo and skipped reason; generated text escaped."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

from markdown_it import MarkdownIt
from typer.testing import CliRunner

from sane.cli import app
from sane.cli._common import TerminalConsole
from sane.cli._report import summary_renderables
from sane.comparison_record import ComparisonAudit, ComparisonCheck
from sane.reporting import build_report, render_html, render_markdown
from sane.suites.store import SuiteStore

FINDINGS = [
    "always-a prefers position A (shown first): 100% of decisive verdicts flip on swap",
    "always-a calls a text better than itself: 100% of identical pairs",
    "longer prefers the longer answer: padding that adds nothing moves the preference",
]
CLEAN = "exact: no comparative bias found"


def _report(suite: Path, fmt: str) -> str:
    result = CliRunner().invoke(app, ["report", str(suite), "--format", fmt])
    assert result.exit_code == 0, result.output
    return result.stdout


def _in_order(text: str, parts: list[str]) -> list[int]:
    places = [text.index(part) for part in parts]
    assert places == sorted(places), list(zip(parts, places, strict=True))
    return places


def test_markdown_leads_with_the_findings_then_every_checks_numbers(comparative: Path) -> None:
    markdown = _report(comparative, "md")
    _in_order(markdown, ["## Findings", "## Comparative judges (oracle-free)", *FINDINGS, CLEAN,
                         "## Suite", "## Validity funnel"])  # fmt: skip
    section = markdown.split("## Comparative judges (oracle-free)")[1].split("## Suite")[0]
    assert "| always-a | 1= | 0.0% [0.0%, 56.1%] | 2 | 3 | 51 |" in section
    assert re.search(r"\| longer \| 1= \| 100\.0% \[43\.9%, 100\.0%\] \| 1 \| 3 \| 51 \|", section)
    for target in ("always-a", "longer", "exact"):
        table = section.split(f"### {target}: comparison checks")[1].split("###")[0]
        assert table.count("\n| ") == 8  # the header and the seven checks
    exact = section.split("### exact: comparison checks")[1]
    assert "| Transitivity | share of fully decisive triples" in exact
    assert "| n/a | n/a | 0 | n/a | — | skipped: no decisive verdict to measure it on |" in exact
    verbosity = section.split("### longer: comparison checks")[1].split("###")[0]
    row = next(line for line in verbosity.splitlines() if line.startswith("| Verbosity"))
    assert "| 1.000 | [1.000, 1.000] | 3 | 0.000 |" in row and "prefers the longer" in row


def test_json_and_the_summary_put_the_findings_first(comparative: Path) -> None:
    document = json.loads(_report(comparative, "json"))
    keys = list(document)
    assert keys.index("comparison_audit") == keys.index("findings") + 1
    section = document["comparison_audit"]
    assert next(iter(section)) == "headlines"
    texts = [h["text"] for h in section["headlines"]]
    assert [h["kind"] for h in section["headlines"]] == ["finding"] * 3 + ["none"]
    assert [t[: len(f)] for t, f in zip(texts, FINDINGS, strict=False)] == FINDINGS
    by_target = {t["target"]: t for t in section["targets"]}
    assert by_target["always-a"]["swap_consistency"] == 0.0
    assert by_target["always-a"]["findings"] == 2 and by_target["exact"]["findings"] == 0
    checks = {c["kind"]: c for c in by_target["always-a"]["checks"]}
    assert checks["swap_symmetry"]["rate"] == 1.0 and checks["identity"]["n"] == 6

    store = SuiteStore(comparative, readonly=True)
    try:
        report = build_report(store.snapshot())
    finally:
        store.close()
    console = TerminalConsole(width=200, record=True, file=io.StringIO())
    for renderable in summary_renderables(report, comparative):
        console.print(renderable)
    text = console.export_text()
    _in_order(text, ["Findings.", "Comparative judges (oracle-free).", *FINDINGS, CLEAN,
                     "Targets by "])  # fmt: skip


def test_the_html_page_shows_the_section_before_the_funnel(comparative: Path) -> None:
    page = _report(comparative, "html")
    _in_order(page, ['id="findings"', 'id="comparison-audit"', *FINDINGS, CLEAN, 'id="funnel"'])
    assert page.count('<tr data-check="') == 3 * 7
    assert '<a href="#comparison-audit">Comparative judges</a>' in page


HOSTILE = "\x1b[2J![x](http://evil.example/b.png) <script>alert(1)</script> *star*"


def test_generated_text_in_the_section_is_inert(comparative: Path) -> None:
    """A target's name and a check's finding are someone else's text: shown, never obeyed."""
    store = SuiteStore(comparative, readonly=True)
    try:
        snapshot = store.snapshot()
    finally:
        store.close()
    check = ComparisonCheck(
        kind="swap_symmetry", statistic=HOSTILE, value=1.0, ci=(1.0, 1.0), n=3, finding=HOSTILE
    )
    audit = ComparisonAudit(target=f"judge {HOSTILE}", examples=3, calls=6, checks=[check])
    report = build_report(snapshot.model_copy(update={"comparisons": [audit]}))
    markdown = render_markdown(report)
    section = markdown.split("## Comparative judges (oracle-free)")[1].split("## Suite")[0]
    assert "\x1b" not in section
    for renderer in (MarkdownIt("commonmark").enable("table"),):
        rendered = renderer.render(section)
        assert "<img" not in rendered and "<a href" not in rendered
        assert "<script>" not in rendered and "<em>star" not in rendered
    page = render_html(report)
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)" in page
    console = TerminalConsole(width=200, record=True, file=io.StringIO())
    for renderable in summary_renderables(report, comparative):
        console.print(renderable)
    assert "\x1b[2J" not in console.file.getvalue()  # type: ignore[attr-defined]


def test_each_audited_targets_headline_carries_its_comparison_findings(comparative: Path) -> None:
    """The headline is what a reader sees first for a target: an audit finding belongs
    there, marked oracle-free, and a clean target's headline gains nothing."""
    store = SuiteStore(comparative, readonly=True)
    report = build_report(store.snapshot())
    store.close()
    headlines = {t.target: t.headline for t in report.findings.targets}
    assert "prefers position A (shown first)" in headlines["always-a"]
    assert "calls a text better than itself" in headlines["always-a"]
    assert "(comparison audit, oracle-free)" in headlines["longer"]
    assert "prefers the longer answer" in headlines["longer"]
    assert "comparison audit" not in headlines["exact"]


def test_a_comparative_suites_dead_end_offers_the_comparative_baseline(comparative: Path) -> None:
    from sane.reporting import ways_out

    store = SuiteStore(comparative, readonly=True)
    report = build_report(store.snapshot())
    store.close()
    lines = ways_out(report.validity, report.review, "m", "s.db", comparative=True)
    assert lines, "the fixture suite's oracle never qualified: a dead end"
    assert "--generator fixed:pairwise" in lines[-1] and "fixed:jrh" not in "".join(lines)
    markdown = _report(comparative, "md")
    assert "--generator fixed:pairwise" in markdown
