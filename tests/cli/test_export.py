"""`sane export` through the real CLI on the executed tiny suite.

The suite (tests/fixtures/tiny_script.yaml): rec-1-1 is validated with 3 joint-valid cases;
another aligned family has joint-valid cases but misses tau, so exporting every joint-valid
case instead of only the validated families' would be caught. Targets: careful passes, lazy
faults, broken errors on every case.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

import sane
from sane.cli import app
from sane.llm import LLMSettings
from sane.records import Decision, PanelDecision, SuiteSnapshot
from sane.suites.store import SuiteStore

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Generated and executed once for the module; the export only reads it."""
    work = tmp_path_factory.mktemp("export")
    for name in ("tiny_spec.yaml", "tiny_examples.jsonl", "tiny_script.yaml"):
        shutil.copy(FIXTURES / name, work / name)
    llm = LLMSettings(
        cache_path=work / "cache.db", script_path=work / "tiny_script.yaml", backoff_s=0.0
    )
    path = work / "suite.db"
    sane.generate(work / "tiny_spec.yaml", suite=path, model="scripted", votes=3, cases=4,
                  max_capabilities=2, recipes_per_capability=2, llm=llm)  # fmt: skip
    sane.execute(path, spec=work / "tiny_spec.yaml", llm=llm, timeout_s=5)
    return path


@pytest.fixture(scope="module")
def snapshot(suite: Path) -> SuiteSnapshot:
    store = SuiteStore(suite, readonly=True)
    try:
        return store.snapshot()
    finally:
        store.close()


def run(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


def export_jsonl(suite: Path) -> list[dict]:
    result = run("export", suite)
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


def report(suite: Path) -> dict:
    result = run("report", suite, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _yes(decisions: dict[str, PanelDecision], key: str) -> bool:
    return key in decisions and decisions[key].decision is Decision.yes


def test_exactly_the_joint_valid_cases_of_validated_families_are_exported(
    suite: Path, snapshot: SuiteSnapshot
) -> None:
    validated = {f.recipe_id for f in snapshot.families if f.validated}
    joint_valid = [
        c
        for c in snapshot.cases
        if _yes(snapshot.realization, c.id) and _yes(snapshot.applicability, c.id)
    ]
    expected = [c.id for c in joint_valid if c.recipe_id in validated]
    # the suite tells the two rules apart: some joint-valid cases sit in a family below tau
    assert report(suite)["validity"]["joint_valid_cases"] > len(expected) > 0
    assert len(joint_valid) > len(expected)

    rows = export_jsonl(suite)
    assert [row["case_id"] for row in rows] == expected
    # ... which are exactly the cases `sane execute` ran
    assert {row["case_id"] for row in rows} == {e.case_id for e in snapshot.executions}


def test_each_case_carries_its_recipe_texts_provenance_and_stored_results(
    suite: Path, snapshot: SuiteSnapshot
) -> None:
    rows = export_jsonl(suite)
    cases = {c.id: c for c in snapshot.cases}
    recipes = {r.id: r for r in snapshot.recipes}
    capabilities = {c.id: c for c in snapshot.capabilities}
    executions = {(e.target, e.case_id): e for e in snapshot.executions}
    for row in rows:
        case, recipe = cases[row["case_id"]], recipes[row["recipe_id"]]
        assert case.recipe_id == recipe.id
        assert row["recipe_name"] == recipe.name
        assert row["capability_id"] == recipe.capability_id
        assert row["capability_name"] == capabilities[recipe.capability_id].name
        assert row["requirement"] == recipe.requirement.value
        assert row["relation"] == recipe.relation.model_dump(mode="json")
        assert row["variants"] == case.variants
        assert (row["case_index"], row["example_index"]) == (case.index, case.example_index)
        assert row["example"] == case.example
        assert set(row["results"]) == {"broken", "careful", "lazy"}
        for target, result in row["results"].items():
            stored = executions[(target, case.id)]
            assert result == {
                "verdict": stored.verdict.value,
                "scores": stored.scores,
                "normalised": stored.normalised,
                "tolerance": stored.tolerance,
                "error": stored.error,
                "detail": stored.detail,
                "definition_sha256": stored.definition_sha256,
                "transcripts": {},  # python targets make no model call
            }
    careful = rows[0]["results"]["careful"]
    assert careful["definition_sha256"] and careful["scores"]["original"] == [5.0]


def test_per_target_verdicts_match_the_report(suite: Path) -> None:
    rows = export_jsonl(suite)
    targets = report(suite)["targets"]
    counted = {
        target: {
            key: sum(row["results"][target]["verdict"] == verdict for row in rows)
            for key, verdict in (("passes", "pass"), ("faults", "fault"), ("errors", "error"))
        }
        for target in targets
    }
    assert counted == {
        target: {key: summary[key] for key in ("passes", "faults", "errors")}
        for target, summary in targets.items()
    }
    assert counted["lazy"]["faults"] == len(rows) and counted["broken"]["errors"] == len(rows)


def test_csv_has_one_row_per_case_and_loads_with_the_csv_module(
    suite: Path, tmp_path: Path
) -> None:
    rows = export_jsonl(suite)
    out = tmp_path / "cases.csv"
    result = run("export", suite, "--format", "csv", "--out", out)
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    with out.open(newline="", encoding="utf-8") as handle:
        table = list(csv.DictReader(handle))
    assert [r["case_id"] for r in table] == [r["case_id"] for r in rows]
    for flat, nested in zip(table, rows, strict=True):
        assert flat["recipe_name"] == nested["recipe_name"]
        assert flat["relation_kind"] == nested["relation"]["kind"]
        assert json.loads(flat["relation"]) == nested["relation"]
        assert int(flat["example_index"]) == nested["example_index"]
        assert {k: flat[f"example.{k}"] for k in nested["example"]} == nested["example"]
        assert {k: flat[f"variant.{k}"] for k in nested["variants"]} == nested["variants"]
        for target, res in nested["results"].items():
            assert flat[f"verdict.{target}"] == res["verdict"]
            assert json.loads(flat[f"scores.{target}"]) == res["scores"]
            assert json.loads(flat[f"normalised.{target}"]) == res["normalised"]
            tolerance = flat[f"tolerance.{target}"]
            assert (float(tolerance) if tolerance else None) == res["tolerance"]
            assert (flat[f"error.{target}"] or None) == res["error"]
            assert flat[f"definition_sha256.{target}"] == res["definition_sha256"]
    # to stdout, the same table
    streamed = run("export", suite, "-f", "csv")
    assert streamed.exit_code == 0, streamed.output
    assert list(csv.DictReader(io.StringIO(streamed.stdout, newline=""))) == table


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "xml"], "unknown format 'xml'"),
        (["--out", "{tmp}/missing/cases.jsonl"], "--out"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    suite: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    result = run("export", suite, *[a.format(tmp=tmp_path) for a in args])
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("sane: error:") and message in lines[0]


def test_a_missing_suite_exits_2_with_one_line(tmp_path: Path) -> None:
    result = run("export", tmp_path / "nope.db")
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "suite file not found" in lines[0]


def test_an_existing_out_is_replaced_only_by_a_complete_export(
    suite: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "cases.jsonl"
    out.write_text("keep me\n")
    assert run("export", suite, "--format", "xml", "--out", out).exit_code == 2
    assert run("export", tmp_path / "nope.db", "--out", out).exit_code == 2
    assert out.read_text() == "keep me\n"

    # a write that fails half way (a full disk) leaves the old file and no temporary file
    import sane.export

    def half(cases, handle) -> None:
        handle.write("{partial")
        raise OSError(28, "No space left on device")

    monkeypatch.setitem(sane.export.WRITERS, "jsonl", half)
    result = run("export", suite, "--out", out)
    assert result.exit_code == 2 and "No space left on device" in result.stderr
    assert out.read_text() == "keep me\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cases.jsonl"]
    monkeypatch.undo()

    result = run("export", suite, "--out", out)
    assert result.exit_code == 0, result.output
    assert [json.loads(line)["case_id"] for line in out.read_text().splitlines()] == [
        row["case_id"] for row in export_jsonl(suite)
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cases.jsonl"]
