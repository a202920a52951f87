"""Self-contained suites through the real CLI: a suite runs after its spec folder is gone,
another spec of the same scorer adds a judge that is ranked beside the first, a replaced
definition is measured again, and a spec of another scorer or a bad target is refused
before anything is stored."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import yaml
from typer.testing import CliRunner

from sane.cli import app

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TINY_ARGS = ["--votes", "3", "--cases", "4", "--capabilities", "2", "--recipes", "2"]

# Judges answered by the scripted model; each rubric carries a marker the rules look for, so
# a judge scores only if the rubric text it renders is the one it was defined with.
JUDGE_RULES = [
    {"task": "judge:judge-v1", "contains": "RUBRIC-V1-STRICT", "response": "Score: 1"},
    {"task": "judge:judge-v1", "contains": ["RUBRIC-V1", "UNSUPPORTED"], "response": "Score: 2"},
    {"task": "judge:judge-v1", "contains": "RUBRIC-V1", "response": "Score: 5"},
    {"task": "judge:judge-v2", "contains": "RUBRIC-V2", "response": "Score: 3"},
]


def run(*args: object) -> tuple[int, str]:
    result = CliRunner().invoke(app, [str(a) for a in args])
    return result.exit_code, result.stdout + result.stderr


def write_spec(folder: Path, targets: list[dict], rubrics: dict[str, str], **changes: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    spec = yaml.safe_load((FIXTURES / "tiny_spec.yaml").read_text())
    spec.update(changes, targets=targets)
    shutil.copy(FIXTURES / "tiny_examples.jsonl", folder / "tiny_examples.jsonl")
    for name, text in rubrics.items():
        (folder / name).write_text(text)
    (folder / "spec.yaml").write_text(yaml.safe_dump(spec))
    return folder / "spec.yaml"


def judge(name: str, rubric: str) -> dict:
    return {"name": name, "kind": "llm_judge", "model": "scripted", "prompt": rubric}


def llm_args(work: Path) -> list[str]:
    script = yaml.safe_load((FIXTURES / "tiny_script.yaml").read_text())
    script["rules"] = JUDGE_RULES + script["rules"]
    (work / "script.yaml").write_text(yaml.safe_dump(script))
    return ["--script", work / "script.yaml", "--cache", work / "cache.db", "--quiet"]


def report(suite: Path) -> dict:
    code, text = run("report", suite, "--format", "json")
    assert code == 0, text
    return json.loads(text)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_moved_suite_runs_without_its_spec_folder_and_takes_a_second_judge(
    tmp_path: Path,
) -> None:
    origin = write_spec(
        tmp_path / "origin",
        [
            judge("judge-v1", "v1.j2"),
            {"name": "careful", "kind": "python", "ref": "fixture_targets:careful"},
        ],
        {"v1.j2": "RUBRIC-V1 {{ fields[scored_field] }}"},
    )
    work = tmp_path / "work"
    work.mkdir()
    args = llm_args(work)
    code, text = run(
        "generate",
        origin,
        "--suite",
        tmp_path / "origin" / "suite.db",
        "--model",
        "scripted",
        *TINY_ARGS,
        *args,
    )
    assert code == 0, text

    # the suite is moved and its spec folder (rubric included) deleted
    suite = shutil.move(tmp_path / "origin" / "suite.db", work / "suite.db")
    shutil.rmtree(tmp_path / "origin")
    code, text = run("execute", suite, "--trust-suite-code", *args)
    assert code == 0, text
    first = report(Path(suite))
    assert first["targets"]["judge-v1"]["pass_rate"] == 1.0  # the rubric came from the suite
    hashes = {t: first["targets"][t]["definition_sha256"] for t in ("judge-v1", "careful")}

    # a second spec of the same scorer adds judge-v2; judge-v1 and careful stay as measured
    second = write_spec(
        tmp_path / "later",
        [judge("judge-v2", "v2.j2")],
        {"v2.j2": "RUBRIC-V2 {{ fields[scored_field] }}"},
    )
    code, text = run("execute", suite, "--spec", second, *args)
    assert code == 0, text
    both = report(Path(suite))
    assert {entry["target"] for entry in both["ranking"]} == {"careful", "judge-v1", "judge-v2"}
    assert both["targets"]["judge-v2"]["pass_rate"] == 0.0  # a constant judge misses the drop
    assert both["targets"]["judge-v1"]["pass_rate"] == 1.0
    assert {t: both["targets"][t]["definition_sha256"] for t in hashes} == hashes
    assert (
        both["targets"]["judge-v2"]["rubric_sha256"]
        == hashlib.sha256(b"RUBRIC-V2 {{ fields[scored_field] }}").hexdigest()
    )

    # judge-v1 replaced by a stricter rubric: measured again under the new definition
    strict = write_spec(
        tmp_path / "strict",
        [judge("judge-v1", "v1.j2")],
        {"v1.j2": "RUBRIC-V1-STRICT {{ fields[scored_field] }}"},
    )
    code, text = run("execute", suite, "--spec", strict, "--target", "judge-v1", *args)
    assert code == 0, text
    after = report(Path(suite))
    assert after["targets"]["judge-v1"]["definition_sha256"] != hashes["judge-v1"]
    assert after["targets"]["judge-v1"]["pass_rate"] == 0.0  # scores 1 everywhere now
    assert after["targets"]["careful"] == both["targets"]["careful"]


def test_a_spec_of_another_scorer_or_a_bad_target_is_refused_and_nothing_changes(
    tmp_path: Path,
) -> None:
    careful = {"name": "careful", "kind": "python", "ref": "fixture_targets:careful"}
    origin = write_spec(tmp_path / "origin", [careful], {})
    work = tmp_path / "work"
    work.mkdir()
    args = llm_args(work)
    suite = work / "suite.db"
    code, text = run("generate", origin, "--suite", suite, "--model", "scripted", *TINY_ARGS, *args)
    assert code == 0, text
    before = digest(suite)

    other = write_spec(tmp_path / "other", [careful], {}, criterion="Something else entirely.")
    code, text = run("execute", suite, "--spec", other, *args)
    assert code == 2 and "criterion" in text and "same scorer" in text, text
    assert digest(suite) == before

    bad_ref = write_spec(
        tmp_path / "bad", [{"name": "x", "kind": "python", "ref": "fixture_targets:nowhere"}], {}
    )
    code, text = run("execute", suite, "--spec", bad_ref, *args)
    assert code == 2 and "targets.x.ref" in text, text
    missing_rubric = write_spec(tmp_path / "norubric", [judge("j", "absent.j2")], {})
    code, text = run("execute", suite, "--spec", missing_rubric, *args)
    assert code == 2 and "targets.j.prompt" in text, text
    assert digest(suite) == before

    # a bad target is refused by generate too, before a suite file or a call exists
    code, text = run(
        "generate", bad_ref, "--suite", work / "new.db", "--model", "scripted", *TINY_ARGS, *args
    )
    assert code == 2 and "targets.x.ref" in text, text
    assert not (work / "new.db").exists()


def test_regenerating_with_only_other_targets_resumes_the_same_suite(tmp_path: Path) -> None:
    careful = {"name": "careful", "kind": "python", "ref": "fixture_targets:careful"}
    lazy = {"name": "lazy", "kind": "python", "ref": "fixture_targets:constant"}
    work = tmp_path / "work"
    work.mkdir()
    args = llm_args(work)
    suite = work / "suite.db"
    first = write_spec(tmp_path / "a", [careful], {})
    assert (
        run("generate", first, "--suite", suite, "--model", "scripted", *TINY_ARGS, *args)[0] == 0
    )
    second = write_spec(tmp_path / "b", [careful, lazy], {})
    code, text = run("generate", second, "--suite", suite, "--model", "scripted", *TINY_ARGS, *args)
    assert code == 0, text
    code, text = run("execute", suite, "--spec", second, *args)
    assert code == 0, text
    assert set(report(suite)["targets"]) == {"careful", "lazy"}
