"""Every dead end names its way out (issue 55, item 1): a suite without a validated family
says what to do, with each command, in the terminal and first in the reports; `sane execute`
on it exits 4; `sane generate SUITE.db` resumes from the options the suite stores and says
when a review is in force; a suite a person decided has one verdict."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from suite_builders import FIXTURES
from typer.testing import CliRunner

import sane
from sane.cli import app
from sane.reporting import ReviewSummary, render_markdown
from sane.reporting._next_steps import trust_items, ways_out

TINY = ("tiny_spec.yaml", "tiny_examples.jsonl", "tiny_script.yaml")
TINY_ARGS = ["--votes", "3", "--cases", "4", "--capabilities", "2", "--recipes", "2"]


def cli(*args: object) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def _workdir(tmp_path: Path, refuse_every_recipe: bool = False) -> Path:
    for name in (*TINY, "fixture_targets.py"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    if refuse_every_recipe:  # the panel aligns nothing: no validated family
        script = yaml.safe_load((tmp_path / "tiny_script.yaml").read_text())
        refuse = {"task": "vote:alignment", "response": {"decision": "no", "rationale": "no"}}
        script["rules"].insert(0, refuse)
        (tmp_path / "tiny_script.yaml").write_text(yaml.safe_dump(script))
    return tmp_path


def _llm(workdir: Path) -> list[str]:
    return ["--script", workdir / "tiny_script.yaml", "--cache", workdir / "cache.db", "-q"]


def _generate(workdir: Path) -> tuple[int, str, str]:
    spec, suite = workdir / "tiny_spec.yaml", workdir / "s.db"
    return cli(
        "generate", spec, "--model", "scripted", "--suite", suite, *TINY_ARGS, *_llm(workdir)
    )


def test_no_validated_family_names_the_ways_out_and_execute_exits_4(tmp_path):
    workdir = _workdir(tmp_path, refuse_every_recipe=True)
    code, _, stderr = _generate(workdir)
    assert code == 0
    suite = workdir / "s.db"
    assert "Dead end: no validated family" in stderr
    assert f"`sane view {suite}`, then open the /review page" in stderr
    assert "--oracle-model STRONG" in stderr and "--generator fixed:jrh" in stderr
    code, _, stderr = cli("execute", suite, "--trust-suite-code", *_llm(workdir))
    assert code == 4
    assert "nothing to run" in stderr and "Dead end: no validated family" in stderr
    markdown = render_markdown(sane.report(suite))
    # first in the report: before the findings and the suite's details
    assert markdown.index("Dead end: no validated family") < markdown.index("## Suite")
    assert "\n**Dead end: no validated family" in markdown  # bold, not escaped asterisks


def test_generate_suite_alone_resumes_from_its_stored_options(tmp_path):
    workdir = _workdir(tmp_path)
    assert _generate(workdir)[0] == 0
    suite = workdir / "s.db"
    before = sane.report(suite).model_dump(mode="json")
    code, _, stderr = cli("generate", suite, *_llm(workdir))
    assert code == 0, stderr
    after = sane.report(suite).model_dump(mode="json")
    assert after["validity"] == before["validity"]
    code, _, stderr = cli("generate", suite, "--votes", "5", *_llm(workdir))
    assert code == 2 and "--votes: this suite resumes with the options it stores" in stderr
    code, _, stderr = cli("generate", workdir / "new.db", *_llm(workdir))
    assert code == 2 and "no such suite yet: start it with `sane generate SPEC" in stderr


def test_generate_after_a_review_says_the_review_is_in_force(tmp_path):
    from sane.review._questions import ANSWERS, answer_question, review_questions
    from sane.suites.store import SuiteStore

    workdir = _workdir(tmp_path)
    assert _generate(workdir)[0] == 0
    suite = workdir / "s.db"
    store = SuiteStore(suite, writer=True)
    try:
        for question in review_questions(store.snapshot())[:3]:
            answer = "yes" if question.mode == "yes_no" else ANSWERS[question.mode][0]
            answer_question(store, question.id, answer)
    finally:
        store.close()
    code, _, stderr = cli("generate", suite, *_llm(workdir))
    assert code == 0, stderr
    assert "re-decided with the review in force: 2 of 15 questions decided by a person" in stderr
    assert "answer them at /review" in stderr


@pytest.fixture
def failed_funnel(tmp_path):
    workdir = _workdir(tmp_path)
    assert _generate(workdir)[0] == 0
    funnel = sane.report(workdir / "s.db").validity
    controls = funnel.controls.model_copy(
        update={"failed": True, "summary": "The oracle panel FAILED its controls."}
    )
    return funnel.model_copy(update={"controls": controls})


def test_a_suite_a_person_decided_has_one_verdict(failed_funnel):
    person = ReviewSummary(
        applied={}, changed=[], validated_by_panel=0, validated=1, questions=4,
        decided_by_person=4, controls_answered=3, controls_right=3,
    )  # fmt: skip
    items = trust_items(failed_funnel, person)
    assert not any(item.warning for item in items)  # never red beside "evidence"
    controls = next(i for i in items if i.mark == "controls-failed")
    assert controls.text.startswith("Not in force (a person decided every question)")
    assert "controls 3/3 right" in items[0].text  # the controls put to the person count
    assert ways_out(failed_funnel, person, "m") == []
    partial = person.model_copy(update={"decided_by_person": 2})
    assert any(i.warning for i in trust_items(failed_funnel, partial))
    assert "finish the review" in ways_out(failed_funnel, partial, "m")[1]


def test_a_suite_never_executed_says_so_instead_of_an_empty_table(tmp_path):
    from rich.console import Console

    from sane.cli._report import summary_renderables

    workdir = _workdir(tmp_path)
    assert _generate(workdir)[0] == 0
    suite = workdir / "s.db"
    code, stdout, stderr = cli("rank", suite)
    assert code == 4 and stdout == ""
    assert f"no target was executed yet; run `sane execute {suite}`" in stderr
    console = Console(width=200, record=True, file=__import__("io").StringIO())
    for line in summary_renderables(sane.report(suite), suite):
        console.print(line)
    text = console.export_text()
    assert "Targets by " not in text
    assert f"no target was executed yet: sane execute {suite}" in text


def test_a_skipped_qualification_is_said_as_such_not_as_a_failed_one(tmp_path):
    """--skip-qualify leaves the oracle unmeasured: the dead end says it was never qualified,
    never that it failed a qualification it was not asked."""
    from sane.reporting._next_steps import dead_end

    workdir = _workdir(tmp_path)
    spec, suite = workdir / "tiny_spec.yaml", workdir / "s.db"
    code, _, _ = cli("generate", spec, "--model", "scripted", "--suite", suite, *TINY_ARGS,
                     "--skip-qualify", *_llm(workdir))  # fmt: skip
    assert code == 0
    funnel = sane.report(suite).validity
    assert funnel.qualification is not None and not funnel.qualification.models
    assert dead_end(funnel) == (
        "the oracle was never qualified (qualification skipped): its faults are not evidence"
    )
