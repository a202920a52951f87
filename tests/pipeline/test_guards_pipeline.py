"""The validity guards inside a run: a yes-always oracle cannot let a no-op through."""

from __future__ import annotations

import shutil
from pathlib import Path

from tiny_suite import generate_tiny

import sane
from sane.api import report_html
from sane.llm import LLMSettings
from sane.records import Question, Requirement
from sane.reporting import render_markdown
from sane.review import review_questions
from sane.suites.store import SuiteStore

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _run(workdir: Path) -> Path:
    shutil.copy(FIXTURES / "guards_script.yaml", workdir / "guards_script.yaml")
    suite = workdir / "guards.db"
    settings = LLMSettings(
        cache_path=workdir / "cache.db", script_path=workdir / "guards_script.yaml", backoff_s=0
    )
    generate_tiny(
        workdir,
        settings,
        suite=suite,
        cases=3,
        exhaustive=True,
        panel="plain",  # a yes-always panel: the guards alone must keep the no-ops out
    )
    sane.execute(suite, targets=["careful", "lazy"], llm=settings, trust_suite_code=True)
    return suite


def test_guards_repair_reject_and_count_and_the_panel_never_sees_rejections(workdir: Path):
    suite = _run(workdir)
    store = SuiteStore(suite)
    try:
        recipes = {r.id: r for r in store.recipes()}
        alignment = store.decisions(Question.alignment)
        realization = store.decisions(Question.realization)
        executed = {e.case_id for e in store.executions()}
        (declined,) = [c for c in store.cases("rec-2-1") if c.index == 1]
        snapshot = store.snapshot()
    finally:
        store.close()
    # repaired before storing
    assert recipes["rec-2-1"].requirement is Requirement.monotonicity
    assert recipes["rec-2-1"].repairs[0].startswith("requirement_refiled")
    # rejected recipes are never put to the panel, and get no cases
    assert {s for s in alignment if not s.startswith("control:")} == {"rec-1-1", "rec-2-1"}
    assert not [c for c in realization if c.startswith(("rec-1-2/", "rec-2-2/"))]
    # the no-op case is never voted on and never executed
    assert "rec-1-1/case-0" not in realization
    assert "rec-1-1/case-0" not in executed and "rec-1-1/case-1" in executed
    # nor is a case its writer declined, which keeps its reason and no invented text
    assert declined.not_applicable == "the summary makes one claim and leaves nothing to contradict"
    assert set(declined.variants) == {"original"} and declined.error is None
    assert "rec-2-1/case-1" not in realization and "rec-2-1/case-1" not in executed
    assert "rec-2-1/case-0" in executed
    assert not [q for q in review_questions(snapshot) if q.subject_id == "rec-2-1/case-1"]

    report = sane.report(suite)
    assert report.validity.guards == {
        "case_no_op": 1,
        "case_not_applicable": 1,
        "recipe_duplicate": 1,
        "recipe_no_op": 1,
        "requirement_refiled": 2,  # rec-2-2 too, before it was merged
    }
    assert report.validity.candidate_recipes == 4
    assert report.validity.aligned_recipes == 2
    assert report.validity.realized_cases == 4  # of 6: neither the no-op nor the declined
    assert not report.warnings  # the stored families agree with the recomputed ones
    # a yes-always panel accepts every planted known-wrong item, and the report says so
    controls = report.validity.controls
    assert controls is not None and controls.failed
    assert controls.false_accept.wrong == controls.false_accept.items > 0
    assert controls.summary.startswith("The oracle panel FAILED its controls")
    # ...first, in every report
    markdown = render_markdown(report)
    assert markdown.splitlines()[2].startswith("> **Oracle NOT qualified")  # never qualified
    assert markdown.splitlines()[4].startswith("> **The oracle panel FAILED its controls")
    html = report_html(suite)
    assert html.index("data-controls-failed") < html.index('id="funnel"')
