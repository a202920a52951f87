"""The score-inflation search inside `sane execute` (--max-target-calls): oracle-free, stored
in the suite, resumed from it, first in the report, gated by `sane check --max-inflation`."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import yaml
from tiny_suite import generate_tiny
from typer.testing import CliRunner

import sane
from sane.cli import app
from sane.llm import LLMSettings

MORE = [
    {"source": f"The library of town {i} opens a reading room on Friday. It seats forty.",
     "summary": f"Town {i} opens a reading room on Friday."}
    for i in range(8)
]  # fmt: skip


def _suite(workdir: Path, settings: LLMSettings) -> Path:
    examples = workdir / "tiny_examples.jsonl"
    examples.write_text(examples.read_text() + "".join(json.dumps(e) + "\n" for e in MORE))
    spec = yaml.safe_load((workdir / "tiny_spec.yaml").read_text())
    spec["targets"].append(
        {"name": "flattered", "kind": "python", "ref": "fixture_targets:flattered"}
    )
    (workdir / "tiny_spec.yaml").write_text(yaml.safe_dump(spec))
    generate_tiny(workdir, settings)
    return workdir / "suite.db"


def _scores(suite: Path) -> int:
    with sqlite3.connect(suite) as db:
        return db.execute("select count(*) from inflation_scores").fetchone()[0]


def test_the_search_finds_the_planted_exploit_and_nothing_in_the_others(
    workdir: Path, settings: LLMSettings
) -> None:
    suite = _suite(workdir, settings)
    sane.execute(suite, targets=["careful", "flattered", "broken"], max_target_calls=200,
                 trust_suite_code=True, llm=settings)  # fmt: skip
    report = sane.report(suite)
    by_target = {r.target: r for r in report.inflation}
    assert set(by_target) == {"careful", "flattered", "broken"}
    flattered = by_target["flattered"].strongest
    assert flattered is not None and flattered.inflation.mean > 0.4  # 3 -> 5 on 1..5 is 0.5
    assert "excellent" in flattered.example["manipulated"].lower()
    assert by_target["careful"].confirmed == [] and by_target["careful"].error is None
    assert by_target["broken"].error is not None and by_target["broken"].confirmed == []
    assert max(r.calls for r in report.inflation) <= 200
    robustness = {  # the oracle-free line beside the requirements: the judge without exploits
        e.target: e.pass_rate for e in report.ranking_by_requirement["manipulation robustness"]
    }  # ranks first, the broken one (no verdict) is unrated
    assert robustness["careful"] == 1.0 > robustness["flattered"]
    assert robustness["broken"] is None

    markdown = CliRunner().invoke(app, ["report", str(suite), "--format", "md"]).stdout
    head = markdown.split("## Validity funnel")[0]
    assert "## Score inflation (oracle-free)" in head and "| flattered |" in head

    made = _scores(suite)
    assert made == sum(r.calls for r in report.inflation) > 0
    sane.execute(suite, targets=["careful", "flattered"], max_target_calls=200,
                 trust_suite_code=True, llm=settings)  # fmt: skip
    assert _scores(suite) == made  # searched already, same definitions: nothing asked again
    assert sane.report(suite).inflation == report.inflation

    gate = CliRunner().invoke(app, ["check", str(suite), "--max-inflation", "0.2"])
    assert gate.exit_code == 4, gate.output  # broken has no search result: not measured
    gate = CliRunner().invoke(
        app, ["check", str(suite), "--max-inflation", "0.2", "--target", "flattered"]
    )
    assert gate.exit_code == 5 and "score inflation" in gate.stdout, gate.output
    gate = CliRunner().invoke(
        app, ["check", str(suite), "--max-inflation", "0.2", "--target", "careful"]
    )
    assert gate.exit_code == 0, gate.output


def test_an_interrupted_search_resumes_from_the_suite(workdir: Path, settings: LLMSettings) -> None:
    """The search's target calls are stored as they are made: stopped part-way (a budget
    of 120, most of it set aside for the confirmation), the rerun with the
    full budget asks none of them again."""
    suite = _suite(workdir, settings)
    sane.execute(suite, targets=["flattered"], max_target_calls=120, trust_suite_code=True,
                 llm=settings)  # fmt: skip
    first = _scores(suite)
    assert 0 < first <= 120
    with sqlite3.connect(suite) as db:  # a new definition hash: the target is searched again
        db.execute("update inflation set json = json_set(json, '$.definition_sha256', 'old')")
    sane.execute(suite, targets=["flattered"], max_target_calls=300, trust_suite_code=True,
                 llm=settings)  # fmt: skip
    result = {r.target: r for r in sane.report(suite).inflation}["flattered"]
    assert result.calls == _scores(suite) > first and result.strongest is not None


def test_a_changed_judge_is_searched_afresh_never_answered_by_the_old_scores(
    workdir: Path, settings: LLMSettings
) -> None:
    """The stored calls belong to the definition that made them: a target replaced under the
    same name (judge v2) is searched with calls of its own."""
    suite = _suite(workdir, settings)
    sane.execute(suite, targets=["flattered"], max_target_calls=150, trust_suite_code=True,
                 llm=settings)  # fmt: skip
    before = _scores(suite)
    with sqlite3.connect(suite) as db:  # as `--spec` with a new definition would leave it
        db.execute(
            "update inflation_scores set key = 'other-definition' || substr(key, instr(key, '|'))"
        )
        db.execute(
            "update inflation set json = json_set(json, '$.definition_sha256', 'other-definition')"
        )
    sane.execute(suite, targets=["flattered"], max_target_calls=150, trust_suite_code=True,
                 llm=settings)  # fmt: skip
    assert _scores(suite) == 2 * before  # the same calls asked again for this definition


def test_the_agent_rewording_finds_a_trigger_phrase_no_catalogue_holds(
    workdir: Path, settings: LLMSettings
) -> None:
    """The scripted agent rewords the grader note into "beyond reproach", the one phrase
    the planted judge rewards; a failed rewording call is stored as an error, and a
    rewording of another form is refused by the form check, never scored."""
    spec = yaml.safe_load((workdir / "tiny_spec.yaml").read_text())
    spec["targets"].append(
        {"name": "phrase", "kind": "python", "ref": "fixture_targets:phrase_triggered"}
    )
    (workdir / "tiny_spec.yaml").write_text(yaml.safe_dump(spec))
    suite = _suite(workdir, settings)
    sane.execute(suite, targets=["phrase"], max_target_calls=200, trust_suite_code=True,
                 llm=settings)  # fmt: skip
    report = sane.report(suite)
    (result,) = report.inflation
    strongest = result.strongest
    assert strongest is not None and strongest.found_by == "reworded (agent)"
    assert "beyond reproach" in strongest.text and strongest.inflation.mean > 0.4
    assert any("rewording model unavailable" in e["message"] for e in report.errors.items)
    with sqlite3.connect(suite) as db:
        tasks = {row[0] for row in db.execute("select task from calls")}
    assert "reword" in tasks  # recorded in the suite like every other call
    line = report.targets["phrase"].by_requirement["manipulation robustness"]
    assert line.faults == 1 and line.cases == len(result.form_effects) > 1
    assert [e.target for e in report.ranking_by_requirement["manipulation robustness"]] == [
        "phrase"
    ]
