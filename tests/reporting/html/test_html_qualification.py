"""The HTML report shows an unqualified oracle first, as an alarm (headless Chromium)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sane import api
from sane.reporting._html import render_html
from sane.suites.store import SuiteStore
from tests.qualification.qualified_suites import simulated_suite


@pytest.fixture
def poor(tmp_path: Path) -> Path:
    """Built outside the test's event loop (generating runs one of its own)."""
    return simulated_suite(tmp_path / "poor", 0.6)


async def test_the_html_report_shows_the_alarm_first(poor: Path, page, tmp_path: Path) -> None:
    store = SuiteStore(poor, readonly=True)
    try:
        snapshot = store.snapshot()
    finally:
        store.close()
    path = tmp_path / "report.html"
    report = api.build_report(snapshot)
    path.write_text(
        render_html(report, recipes=snapshot.recipes, capabilities=snapshot.capabilities),
        encoding="utf-8",
    )
    await page.open(path.as_uri())
    await page.wait_for("document.documentElement.getAttribute('data-ready') === '1'")
    first = await page.js(
        "document.querySelector('body > p.alarm, body > p[data-oracle-qualified]').innerText"
    )
    assert first.startswith("Oracle NOT qualified")
    assert await page.js("!!document.querySelector('[data-oracle-unqualified]')")
    assert page.problems() == []
