"""Review files: CSV or JSONL by extension, flat rows, one per decision.

Columns: ``item_id``, ``question``, the texts (``example.FIELD``, ``variant.ROLE``), an
empty ``human_label`` and ``note``. The panel's decision is left out unless asked for
(``show_panel``), so that labellers are not anchored by it; import never reads it. With
it, ``panel_transcripts`` holds the votes' prompts and answers as a JSON list (a cell).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

from sane.errors import InputError
from sane.output_files import write_atomic
from sane.records import Question
from sane.review._items import ReviewItem
from sane.review._labels import HumanLabel
from sane.spreadsheet_cells import read_cell, safe_cell

YES = {"yes", "y", "true", "1", "valid"}
NO = {"no", "n", "false", "0", "invalid"}
_FIXED = [
    "item_id", "question", "prompt", "criterion", "recipe_id", "recipe_name", "requirement",
    "capability", "instruction", "relation", "rationale",
]  # fmt: skip


def _row(item: ReviewItem, show_panel: bool) -> dict[str, str]:
    row = {name: str(getattr(item, name)) for name in _FIXED}
    row["question"] = item.question.value
    row |= {f"example.{k}": v for k, v in item.example.items()}
    row |= {f"variant.{k}": v for k, v in item.variants.items()}
    if show_panel:
        row |= {"panel_decision": item.panel_decision.value, "panel_votes": item.panel_votes}
        calls = [call.model_dump(mode="json") for call in item.panel_calls]
        row["panel_transcripts"] = json.dumps(calls, ensure_ascii=False)
    return row | {"human_label": "", "note": ""}


def _columns(rows: list[dict[str, str]]) -> list[str]:
    seen: dict[str, None] = {}
    for row in rows:
        seen |= dict.fromkeys(row)
    tail = [c for c in ("human_label", "note") if c in seen]
    return [c for c in seen if c not in tail] + tail


def _write_csv(handle: TextIO, rows: list[dict[str, str]]) -> None:
    """No cell, header included, is a spreadsheet formula (sane.spreadsheet_cells): the file
    is meant to be opened by reviewers in a spreadsheet."""
    columns = _columns(rows) or ["item_id", "human_label"]
    writer = csv.writer(handle)
    writer.writerow([safe_cell(column) for column in columns])
    for row in rows:
        writer.writerow([safe_cell(row.get(column, "")) for column in columns])


def _write_jsonl(handle: TextIO, rows: list[dict[str, str]]) -> None:
    handle.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def _read_csv(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    with path.open(newline="", encoding="utf-8") as handle:
        for number, row in enumerate(csv.DictReader(handle), start=2):
            yield (
                number,
                {
                    read_cell(key): read_cell(value) if isinstance(value, str) else value
                    for key, value in row.items()
                    if key is not None
                },
            )


def _read_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(str(path), f"line {number}", f"not JSON: {exc.msg}") from None
            if not isinstance(row, dict):
                raise InputError(str(path), f"line {number}", "expected a JSON object")
            yield number, row


WRITERS: dict[str, Callable[[TextIO, list[dict[str, str]]], None]] = {
    ".csv": _write_csv,
    ".jsonl": _write_jsonl,
}
READERS: dict[str, Callable[[Path], Iterator[tuple[int, dict[str, Any]]]]] = {
    ".csv": _read_csv,
    ".jsonl": _read_jsonl,
}


def _format(path: Path, table: dict[str, Any], option: str | None = None) -> Any:
    handler = table.get(path.suffix.lower())
    if handler is None:
        raise InputError(str(path), option, f"unknown file type (use {', '.join(table)})")
    return handler


def write_items(items: list[ReviewItem], path: Path, *, show_panel: bool = False) -> int:
    """Write the items for labelling; returns the number of rows."""
    writer = _format(path, WRITERS, "--out")
    rows = [_row(item, show_panel) for item in items]
    write_atomic(path, lambda handle: writer(handle, rows), "--out")
    return len(items)


def _label(path: Path, where: str, value: Any) -> bool | None:
    text = str(value if value is not None else "").strip().lower()
    if not text:
        return None
    if text in YES:
        return True
    if text in NO:
        return False
    raise InputError(str(path), f"{where}.human_label", f"expected yes or no, got {value!r}")


def read_labels(path: Path) -> tuple[list[HumanLabel], int]:
    """The labelled rows of a review file, and the number of rows left blank."""
    if not path.is_file():
        raise InputError(str(path), None, "file not found")
    reader = _format(path, READERS)
    try:
        return _labels(path, reader(path))
    except UnicodeDecodeError:
        raise InputError(str(path), None, "not a UTF-8 text file") from None
    except csv.Error as exc:
        raise InputError(str(path), None, f"not a readable CSV file ({exc})") from None


def _labels(path: Path, rows: Iterator[tuple[int, dict[str, Any]]]) -> tuple[list[HumanLabel], int]:
    labels, blank = [], 0
    for number, row in rows:
        where = f"row {number}"
        item_id = str(row.get("item_id") or "").strip()
        if not item_id:
            raise InputError(str(path), f"{where}.item_id", "missing")
        try:
            question = Question(str(row.get("question") or "").strip())
        except ValueError:
            choices = ", ".join(q.value for q in Question)
            raise InputError(str(path), f"{where}.question", f"expected one of {choices}") from None
        label = _label(path, where, row.get("human_label"))
        if label is None:
            blank += 1
            continue
        labels.append(
            HumanLabel(
                item_id=item_id,
                question=question,
                label=label,
                reviewer=str(row.get("reviewer") or ""),
                note=str(row.get("note") or ""),
            )
        )
    return labels, blank
