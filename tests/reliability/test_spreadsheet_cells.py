"""No CSV cell the product writes is a spreadsheet formula, and review files read back as
written. Before: `sane export --format csv` and `sane review export` wrote example texts,
variants and target names such as `=cmd|' /C calc'!A0` unchanged."""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

import pytest

from sane.export import export_cases, write_csv
from sane.records import Question
from sane.review import read_labels, review_items, write_items
from sane.spreadsheet_cells import read_cell, safe_cell
from sane.suites.store import SuiteStore

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli_check"))
from tiny_suite import build_tiny_suite

FORMULAS = ["=cmd|' /C calc'!A0", '=HYPERLINK("http://x.example","click")', "+1+1", "-2+3",
            "@SUM(A1:A2)", "\t=1", "\r=1", "'=already quoted"]  # fmt: skip
TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


@pytest.mark.parametrize("text", [*FORMULAS, "plain", "", "-0.5", "+3", "1e-3", "'", "''=x"])
def test_a_cell_reads_back_as_it_was(text: str) -> None:
    assert read_cell(safe_cell(text)) == text


@pytest.mark.parametrize("text", FORMULAS)
def test_a_formula_is_written_as_text(text: str) -> None:
    assert safe_cell(text).startswith("'")


@pytest.mark.parametrize("number", ["-0.5", "+3", "-1e-3", "42"])
def test_numbers_are_left_alone(number: str) -> None:
    assert safe_cell(number) == number


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory: pytest.TempPathFactory):
    suite = build_tiny_suite(tmp_path_factory.mktemp("cells"))
    store = SuiteStore(suite, readonly=True)
    try:
        return store.snapshot()
    finally:
        store.close()


def _no_formula(rows: list[list[str]]) -> None:
    for row in rows:
        for cell in row:
            assert not cell.startswith(TRIGGERS) or _number(cell), cell


def _number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def test_the_case_export_writes_no_formula(snapshot) -> None:
    cases = export_cases(snapshot)
    assert cases
    hostile = [
        case.model_copy(
            update={
                "example": {k: FORMULAS[i % len(FORMULAS)] for i, k in enumerate(case.example)},
                "variants": {k: FORMULAS[1] for k in case.variants},
                "results": {
                    f"=cmd|' /C calc'!A{i}": r for i, r in enumerate(case.results.values())
                },
                "notes": "@SUM(A1)",
            }
        )
        for case in cases
    ]
    handle = io.StringIO()
    write_csv(hostile, handle)
    rows = list(csv.reader(io.StringIO(handle.getvalue())))
    _no_formula(rows)
    assert any(cell == "'" + FORMULAS[1] for cell in rows[1])  # the text is kept, as text
    assert any(column.startswith("verdict.=cmd") for column in rows[0])  # not a formula: "v..."


def test_a_review_file_writes_no_formula_and_imports_its_labels(snapshot, tmp_path: Path) -> None:
    items = [
        item.model_copy(
            update={
                "recipe_name": FORMULAS[0],
                "rationale": FORMULAS[1],
                "variants": {k: "-x" for k in item.variants},
            }
        )
        for item in review_items(snapshot, Question.alignment)
    ]
    path = tmp_path / "review.csv"
    write_items(items, path)
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    _no_formula(rows)
    header = rows[0]
    for row in rows[1:]:  # a reviewer fills in labels and a note that looks like a formula
        row[header.index("human_label")] = "yes"
        row[header.index("note")] = safe_cell("=looks fine")
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    labels, blank = read_labels(path)
    assert blank == 0 and [label.item_id for label in labels] == [i.item_id for i in items]
    assert {label.note for label in labels} == {"=looks fine"}
