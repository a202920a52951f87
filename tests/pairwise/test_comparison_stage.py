"""The comparison audit as a stage of `sane execute` (sane.pipeline.comparison): every
candidate target of a comparative suite audited with no oracle, the audit stored with the
suite, found right on planted judges, resumed without a call, a failed call an error; a
pointwise suite untouched."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from comparative_suite import generate_comparative, settings_in, write_comparative
from typer.testing import CliRunner

import sane
from sane.cli import app
from sane.errors import InputError
from sane.suites.store import SuiteStore

# the distinct pairs each example is asked about: swap 2, identity 2, whitespace 2 (its
# plain pair is the swap's), padding 3, praise and its placebo 4, transitivity 2, repeats 2
CALLS_PER_EXAMPLE = 17


def _audits(suite: Path) -> dict:
    store = SuiteStore(suite, readonly=True)
    try:
        return {audit.target: audit for audit in store.comparisons()}
    finally:
        store.close()


def _errors(suite: Path, stage: str) -> list[tuple[str, str]]:
    with sqlite3.connect(suite) as db:
        rows = db.execute("select target, message from errors where stage = ?", [stage])
        return rows.fetchall()


def test_each_planted_bias_is_found_and_none_on_the_exact_judge(comparative: Path) -> None:
    audits = _audits(comparative)
    assert set(audits) == {"always-a", "longer", "exact"}  # the planted null scorers: none
    found = {name: sorted(c.kind for c in audit.findings) for name, audit in audits.items()}
    assert found == {
        "always-a": ["identity", "swap_symmetry"],
        "longer": ["verbosity"],
        "exact": [],
    }
    always_a, longer = audits["always-a"], audits["longer"]
    assert always_a.swap_consistency == 0.0 and longer.swap_consistency == 1.0
    assert audits["exact"].swap_consistency == 1.0  # it prefers the supported summary, both ways
    swap = always_a.check("swap_symmetry")
    assert swap is not None and swap.value == 1.0 and swap.rate == 1.0
    assert swap.finding is not None and swap.finding.startswith("prefers position A")
    store = SuiteStore(comparative, readonly=True)
    try:
        definitions = {t.config.name: t.definition_sha256 for t in store.targets()}
    finally:
        store.close()
    for name, audit in audits.items():
        assert audit.error is None and audit.failed_calls == 0
        assert audit.examples == 3 and audit.definition_sha256 == definitions[name]
        assert audit.calls == 3 * CALLS_PER_EXAMPLE
    assert _errors(comparative, "comparison") == []


def _calls() -> list[str]:
    """The planted judges' call log, of the module the targets will be imported as (the
    fixture dropped any earlier import, so this one is theirs)."""
    import comparative_targets

    return comparative_targets.CALLS


def test_a_rerun_asks_no_target_again_and_a_new_bound_audits_afresh(comparative: Path) -> None:
    folder = comparative.parent
    before = _audits(comparative)
    calls = _calls()
    sane.execute(comparative, spec=folder / "comparative.yaml", llm=settings_in(folder),
                 timeout_s=5)  # fmt: skip
    assert calls == []  # every execution final, every audit current
    assert _audits(comparative) == before

    result = CliRunner().invoke(app, [
        "execute", str(comparative), "--spec", str(folder / "comparative.yaml"),
        "--script", str(folder / "tiny_script.yaml"), "--cache", str(folder / "cache.db"),
        "--comparison-examples", "2", "--quiet",
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "comparison audit (oracle-free): always-a prefers position A" in result.stderr
    after = _audits(comparative)
    assert {a.examples for a in after.values()} == {2}
    assert len(calls) == sum(a.calls for a in after.values()) == 3 * 2 * CALLS_PER_EXAMPLE


def test_a_failed_call_is_an_error_never_a_verdict(tmp_path: Path) -> None:
    targets = [
        {"name": "flaky", "kind": "python", "ref": "comparative_targets:flaky"},
        {"name": "broken", "kind": "python", "ref": "comparative_targets:broken"},
    ]
    write_comparative(tmp_path, targets)
    suite = generate_comparative(tmp_path)
    sane.execute(suite, spec=tmp_path / "comparative.yaml", llm=settings_in(tmp_path),
                 timeout_s=5)  # fmt: skip
    audits = _audits(suite)
    flaky, broken = audits["flaky"], audits["broken"]
    assert broken.error is not None and broken.checks == [] and broken.failed_calls == broken.calls
    assert flaky.error is None and flaky.failed_calls == 6  # each example's two praised pairs
    assert "judge crashed on praise" in (flaky.first_failure or "")
    praise = flaky.check("self_praise")
    assert praise is not None and praise.n == 0 and praise.value is None  # not a tie
    assert flaky.check("swap_symmetry").n == 3  # the other kinds kept every example
    errors = _errors(suite, "comparison")
    assert sum(target == "flaky" for target, _ in errors) == 6
    assert sum(target == "broken" for target, _ in errors) == broken.calls
    report = sane.report(suite).comparison_audit
    assert report is not None
    lines = {h.target: h for h in report.headlines}
    assert lines["broken"].kind == "error" and "an error, not a result" in lines["broken"].text
    assert f"6 of {flaky.calls} calls failed" in lines["flaky"].text


def test_a_pointwise_suite_gets_no_audit_and_no_section(workdir: Path, settings) -> None:
    from tiny_suite import generate_tiny

    generate_tiny(workdir, settings)
    suite = workdir / "suite.db"
    sane.execute(suite, spec=workdir / "tiny_spec.yaml", llm=settings, timeout_s=5,
                 trust_suite_code=True)  # fmt: skip
    assert _audits(suite) == {} and _errors(suite, "comparison") == []
    report = sane.report(suite)
    assert report.comparison_audit is None
    document = report.model_dump(mode="json")
    assert "comparison_audit" not in document
    assert "comparison_audit" not in json.loads(report.model_dump_json())
    markdown = CliRunner().invoke(app, ["report", str(suite), "--format", "md"]).stdout
    assert "Comparative judges" not in markdown


def test_a_negative_bound_is_bad_input_naming_the_option(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="--comparison-examples"):
        sane.execute(tmp_path / "none.db", comparison_examples=-1)
    result = CliRunner().invoke(
        app, ["execute", str(tmp_path / "none.db"), "--comparison-examples", "-1"]
    )
    assert result.exit_code == 2 and "--comparison-examples" in result.output
