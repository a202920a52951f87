"""`sane check`: exit codes per threshold on the executed tiny suite, and its summary.

The suite (tests/fixtures/tiny_script.yaml): careful passes everything, lazy faults on
monotonicity cases, broken only errors. Limits are set at and one under the suite's own
counts, so each test pins the boundary.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sane import api
from sane.cli import app
from sane.llm import LLMSettings


def check(suite: Path, *args: str):
    return CliRunner().invoke(app, ["check", str(suite), *args])


@pytest.fixture
def counts(suite: Path) -> dict:
    """The suite's own numbers, so the limits below sit exactly at and just under them."""
    report = api.report(suite)
    assert report.targets["lazy"].faults > 0 and report.targets["careful"].faults == 0
    return {
        "faults": max(t.faults for t in report.targets.values()),
        "mono": max(
            g.faults
            for t in report.targets.values()
            for r, g in t.by_requirement.items()
            if r == "monotonicity"
        ),
        "errors": max(report.errors.by_target.values()),
    }


SCORED = ["--target", "careful", "--target", "lazy"]  # broken errors on every case


@pytest.mark.parametrize(
    ("template", "offset", "code"),
    [
        (["--max-faults", "{faults}"], 0, 0),  # the limit is inclusive
        (["--max-faults", "{faults}"], -1, 5),
        (["--max-faults-per-requirement", "monotonicity={mono}"], 0, 0),
        (["--max-faults-per-requirement", "monotonicity={mono}"], -1, 5),
    ],
)
def test_exit_codes_per_threshold(
    suite: Path, counts: dict, template: list[str], offset: int, code: int
) -> None:
    args = [a.format(**{k: v + offset for k, v in counts.items()}) for a in template]
    result = check(suite, *args, *SCORED)
    assert result.exit_code == code, result.output


@pytest.mark.parametrize(("offset", "verdict"), [(0, "pass"), (-1, "**FAIL**")])
def test_the_error_limit_is_inclusive(suite: Path, counts: dict, offset: int, verdict: str):
    errors = counts["errors"]
    result = check(suite, "--max-errors", str(errors + offset), "--target", "broken")
    assert f"| broken | errors | {errors} | {errors + offset} | {verdict} |" in result.stdout
    assert result.exit_code == 4  # broken has errors only: nothing about it was measured


def test_a_target_that_errored_on_every_case_fails_as_nothing_measured(suite: Path) -> None:
    result = check(suite, "--max-faults", "0", "--target", "broken")
    assert result.exit_code == 4, result.output
    assert "| broken | faults | no result | 0 | **FAIL** |" in result.stdout
    assert (
        "target broken produced no result: all 3 of its case executions errored"
        in (result.stderr.strip().splitlines()[-1])
    )


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["--max-faults", "0", "--target", "careful"], 0),
        (["--max-faults", "0", "--target", "careful", "--target", "lazy"], 5),
        (["--max-faults-per-requirement", "robustness=0", *SCORED], 0),  # none ran
        (["--max-faults", "1000", "--max-errors", "0", *SCORED], 0),
        (["--max-faults", "0", "--max-errors", "1000", *SCORED], 5),  # one failing limit
        (["--max-faults", "1000"], 4),  # broken: nothing measured
    ],
)
def test_exit_codes_per_target_and_combination(suite: Path, args: list[str], code: int) -> None:
    result = check(suite, *args)
    assert result.exit_code == code, result.output


def test_summary_names_the_failing_target_and_limit(suite: Path, counts: dict) -> None:
    lazy = counts["faults"]
    result = check(suite, "--max-faults", "0", "--max-faults-per-requirement", "monotonicity=0")
    assert result.exit_code == 4  # broken errored on every case
    lines = result.stdout.splitlines()
    assert lines[0].startswith("## sane check: tiny-faithfulness") and "FAILED" in lines[0]
    assert f"| lazy | faults | {lazy} | 0 | **FAIL** |" in lines
    assert f"| lazy | faults[monotonicity] | {lazy} | 0 | **FAIL** |" in lines
    assert "| careful | faults | 0 | 0 | pass |" in lines
    assert "| broken | faults | no result | 0 | **FAIL** |" in lines
    assert "5 limit(s) exceeded or unmet." in result.stdout


def test_passing_summary(suite: Path) -> None:
    result = check(suite, "--max-faults", "10", "--max-errors", "10", *SCORED)
    assert result.exit_code == 0
    assert "PASSED" in result.stdout.splitlines()[0]
    assert "FAIL" not in result.stdout


def test_unknown_target_has_no_results_and_fails(suite: Path) -> None:
    result = check(suite, "--max-faults", "10", "--target", "nobody")
    assert result.exit_code == 4
    assert "target nobody has no results in this suite" in result.stdout


def test_unexecuted_suite_fails_the_gate(tmp_path: Path) -> None:
    from tiny_suite import build_tiny_suite

    suite = build_tiny_suite(tmp_path, execute=False)
    result = check(suite, "--max-faults", "100")
    assert result.exit_code == 4
    # the spec declares three targets and none has a result
    for name in ("careful", "lazy", "broken"):
        assert f"target {name} has no results in this suite" in result.stdout


@pytest.mark.parametrize(
    "args",
    [
        [],  # no limit at all
        ["--max-faults-per-requirement", "fluency=1"],
        ["--max-faults-per-requirement", "monotonicity"],
        ["--max-faults-per-requirement", "monotonicity=x"],
        ["--max-faults-per-requirement", "monotonicity=-1"],
        ["--max-faults", "-1"],
    ],
)
def test_bad_limits_are_bad_input(suite: Path, args: list[str]) -> None:
    result = check(suite, *args)
    assert result.exit_code == 2, result.output


def test_missing_suite_is_bad_input(tmp_path: Path) -> None:
    result = check(tmp_path / "nope.db", "--max-faults", "1")
    assert result.exit_code == 2
    assert "suite file not found" in result.stderr


def test_control_false_accept_gate(suite: Path, workdir: Path) -> None:
    """The tiny suite's panel refuses all its known-wrong items: rate 0 passes any limit; a
    suite whose panel accepts them fails, and the summary says so before the table."""
    passed = check(suite, "--max-control-false-accept", "0")
    assert passed.exit_code == 0, passed.output
    assert "control false-accept rate" in passed.stdout

    script = workdir / "always_yes.yaml"
    rules = [
        line
        for line in (workdir / "tiny_script.yaml").read_text().splitlines()
        if '"vote:' not in line
    ]
    always = [
        f'  - {{task: "vote:{q}", response: {{decision: "yes", rationale: "always"}}}}'
        for q in ("alignment", "realization", "applicability")
    ]
    script.write_text("\n".join(rules + always) + "\n")
    gullible = workdir / "gullible.db"
    api.generate(
        workdir / "tiny_spec.yaml",
        suite=gullible,
        model="scripted",
        cases=4,
        max_capabilities=2,
        panel="plain",
        llm=LLMSettings(cache_path=workdir / "g-cache.db", script_path=script, backoff_s=0),
    )
    failed = check(gullible, "--max-control-false-accept", "0.1")
    assert failed.exit_code == 5, failed.output
    lines = failed.stdout.splitlines()
    assert "FAILED" in lines[0] and "FAILED its controls" in failed.stdout.split("|")[0]


def test_a_suite_without_controls_fails_the_control_gate(suite: Path) -> None:
    import sqlite3

    with sqlite3.connect(suite) as db:  # as a suite generated before controls existed
        db.execute("delete from decisions where subject_id like 'control:%'")
        db.execute("delete from votes where subject_id like 'control:%'")
    result = check(suite, "--max-control-false-accept", "0.5")
    assert result.exit_code == 4
    assert "no planted controls" in result.stdout


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["--min-pass-rate", "{careful}", "--target", "careful"], 0),  # the floor is inclusive
        (["--min-pass-rate", "1.01"], 2),
        (["--min-pass-rate", "careful={careful}", "--min-pass-rate", "lazy={lazy}"], 0),
        (["--min-pass-rate", "careful={careful}", "--min-pass-rate", "lazy={lazy_up}"], 5),
        (["--min-pass-rate", "{lazy}", "--min-pass-rate", "careful=1", *SCORED], 0),
        (["--min-pass-rate", "{lazy_up}", "--min-pass-rate", "careful=1", *SCORED], 5),
        (["--min-pass-rate", "=0.5"], 2),
        (["--min-pass-rate", "ghost=0.5", "--target", "careful"], 4),  # no result for ghost
    ],
)
def test_pass_rate_floors_per_target_and_for_all(suite: Path, args: list[str], code: int) -> None:
    report = api.report(suite)
    rates = {name: report.targets[name].pass_rate for name in ("careful", "lazy")}
    assert rates["lazy"] < rates["careful"]  # so the floors below sit on real boundaries
    values = {"careful": rates["careful"], "lazy": rates["lazy"], "lazy_up": rates["lazy"] + 0.01}
    result = check(suite, *[a.format(**values) for a in args])
    assert result.exit_code == code, result.output


def test_json_and_junit_give_the_same_verdicts_as_the_table(suite: Path, tmp_path: Path) -> None:
    from xml.etree import ElementTree

    junit = tmp_path / "gate.xml"
    args = ["--max-faults", "0", "--min-pass-rate", "0.5", *SCORED, "--json", "--junit", junit]
    result = check(suite, *map(str, args))
    assert result.exit_code == 5, result.output
    document = json.loads(result.stdout)
    assert document["passed"] is False and document["measured"] is True
    verdicts = {(c["target"], c["measure"]): c["passed"] for c in document["checks"]}
    assert verdicts == {
        ("careful", "faults"): True,
        ("careful", "pass rate"): True,
        ("lazy", "faults"): False,
        ("lazy", "pass rate"): api.report(suite).targets["lazy"].pass_rate >= 0.5,
    }
    tree = ElementTree.parse(junit).getroot()
    assert tree.get("tests") == "4"
    failed = {
        (case.get("classname"), case.get("name"))
        for case in tree.iter("testcase")
        if case.find("failure") is not None
    }
    assert failed == {(f"sane.{t}", m) for (t, m), ok in verdicts.items() if not ok}
    assert tree.get("failures") == str(len(failed))


def test_report_prints_a_summary_on_a_terminal_and_json_when_piped(suite: Path) -> None:
    import subprocess
    import sys

    summary = CliRunner().invoke(app, ["report", str(suite), "--format", "summary"])
    assert summary.exit_code == 0, summary.output
    text = " ".join(summary.stdout.split())
    # the oracle's qualification comes first, then the panel's record on its controls
    assert text.startswith(("Oracle qualified", "WARNING: Oracle NOT qualified"))
    assert text.index("Oracle") < text.index("controls") < text.index("validated families")
    assert "validated families" in summary.stdout and "Targets by default score" in summary.stdout
    assert "careful" in summary.stdout and "error: no result" in summary.stdout  # broken
    # no --format: JSON when stdout is not a terminal (a pipe here)
    piped = subprocess.run(
        [sys.executable, "-m", "sane", "report", str(suite)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert piped.returncode == 0 and json.loads(piped.stdout)["suite"]["scorer"]


def test_report_on_a_terminal_defaults_to_the_summary(suite: Path) -> None:
    import os
    import pty
    import subprocess
    import sys

    leader, follower = pty.openpty()
    try:
        run = subprocess.run(
            [sys.executable, "-m", "sane", "report", str(suite)],
            stdout=follower, stderr=subprocess.PIPE, timeout=120, check=False,
        )  # fmt: skip
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closed: all was read
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(leader)
    text = b"".join(chunks).decode()
    assert run.returncode == 0, run.stderr
    assert "Targets by default score" in text and not text.lstrip().startswith("{")


def test_a_config_file_holds_the_limits_and_an_option_overrides_its_field(
    suite: Path, counts: dict, tmp_path: Path
) -> None:
    """`--config sane_check.yaml`: the limits as a file kept beside the spec (sane init
    writes one); an option given on the command line wins over its field; a bad field is
    bad input naming the file and the field."""
    config = tmp_path / "sane_check.yaml"
    config.write_text(  # the pytest plugin's gate file: its suite is the plugin's
        f"suite: elsewhere.db\nmax_faults: {counts['faults'] - 1}\n"
        "max_faults_per_requirement: {monotonicity: 99}\n"
    )
    assert check(suite, "--config", str(config), *SCORED).exit_code == 5
    assert check(suite, "--config", str(config), "--max-faults", str(counts["faults"]),
                 *SCORED).exit_code == 0  # fmt: skip
    for text, field in (("suite: s.db\nmax_fault: 3\n", "max_fault"),
                        ("suite: s.db\nmax_faults_per_requirement: {robustnes: 0}\n",
                         "robustnes")):  # fmt: skip
        config.write_text(text)
        bad = check(suite, "--config", str(config))
        assert bad.exit_code == 2 and "sane_check.yaml" in bad.output and field in bad.output
