"""A suite says first, in every format, whether its oracle qualified for its panel.

Real suites from the operator grid on simulated oracles: a poor one (accuracy 0.6) does
not qualify, a perfect one does; a suite generated without qualification says its oracle
was never qualified. The HTML report's banner: tests/reporting/html/test_html_qualification.py."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

import pytest
from typer.testing import CliRunner

from sane import api
from sane.cli import app
from sane.reporting import Limits, evaluate, gate_document, junit_xml, render_gate, render_markdown
from tests.qualification.qualified_suites import simulated_suite


@pytest.fixture(scope="module")
def poor(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return simulated_suite(tmp_path_factory.mktemp("poor"), 0.6)


def test_an_unqualified_oracle_comes_first_in_every_format(poor: Path) -> None:
    report = api.report(poor)
    status = report.validity.qualification
    assert status is not None and not status.qualified
    assert status.summary.startswith("Oracle NOT qualified (SIMULATED oracle")
    (model,) = status.models
    assert model.simulated and model.accuracy.rate is not None and model.accuracy.rate < 0.75
    markdown = render_markdown(report).splitlines()
    assert markdown[2].startswith("> **Oracle NOT qualified")  # right under the title
    document = json.loads(report.model_dump_json())
    assert document["validity"]["qualification"]["qualified"] is False
    gate = evaluate(report, Limits(require_qualified_oracle=True))
    assert not gate.passed and gate.failures[0].measure == "oracle qualified"
    assert render_gate(report, gate).splitlines()[2].startswith("**Oracle NOT qualified")
    assert gate_document(report, gate)["oracle_qualified"] is False
    junit = ElementTree.fromstring(junit_xml(report, gate).split("?>", 1)[1])
    assert junit[0].tag == "properties"
    assert junit[0][0].get("value", "").startswith("Oracle NOT qualified")


def test_the_terminal_and_the_gate_say_it_too(poor: Path) -> None:
    runner = CliRunner()
    summary = runner.invoke(app, ["report", str(poor), "--format", "summary"])
    assert summary.exit_code == 0, summary.output
    assert summary.stdout.lstrip().startswith("WARNING: Oracle NOT qualified")
    gate = runner.invoke(app, ["check", str(poor), "--require-qualified-oracle"])
    assert gate.exit_code == 5, gate.output


def test_a_qualified_oracle_and_a_skipped_one(tmp_path: Path) -> None:
    good = api.report(simulated_suite(tmp_path, 1.0))
    assert good.validity.qualification is not None and good.validity.qualification.qualified
    assert good.validity.qualification.summary.startswith("Oracle qualified (SIMULATED oracle")
    assert evaluate(good, Limits(require_qualified_oracle=True)).passed
    skipped = api.report(simulated_suite(tmp_path / "skipped", 1.0, qualify=False))
    status = skipped.validity.qualification
    assert status is not None and not status.qualified and "never qualified" in status.summary
