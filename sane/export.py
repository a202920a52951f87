"""Export a suite's validated cases, with each target's result, as JSONL or CSV.

Why an export: the report answers the questions SANE asks; an analyst with other questions
(which texts fooled which judge, how scores move per requirement) wants the cases themselves
in a table. Exactly the cases `sane execute` runs are exported: the joint-valid cases of the
validated families, chosen by the function the execute stage uses
(:func:`sane.validators.families.executable_cases`), in the same order. Nothing here decides
validity again.

Formats (documented in docs/reference.md, `sane export`):

- JSONL: one JSON object per case, nested as :class:`ExportedCase` dumps it; ``results``
  maps each target that executed the case to its :class:`ExportedResult`.
- CSV: one row per case, so ``pandas.read_csv`` gives one case per row without reshaping.
  Scalars are plain columns; texts spread into ``example.FIELD`` and ``variant.ROLE`` columns
  (as `sane review export` does); per-target results become ``FIELD.TARGET`` columns
  (``verdict.careful``); only the truly nested values (``relation``, ``scores.TARGET``,
  ``normalised.TARGET``, ``transcripts.TARGET``) are JSON-encoded cells. An empty cell is a missing value.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Literal, TextIO

from pydantic import Field

from sane._record import Record
from sane.errors import InputError
from sane.output_files import write_atomic
from sane.records import (
    Case,
    ExecutionRecord,
    Recipe,
    Relation,
    Requirement,
    SuiteSnapshot,
    Transcript,
    Verdict,
)
from sane.spreadsheet_cells import safe_cell
from sane.target_kind import is_control
from sane.validators.families import executable_cases

ExportFormat = Literal["jsonl", "csv"]
FORMATS: tuple[ExportFormat, ...] = ("jsonl", "csv")


class ExportedCall(Record):
    """One judge call behind a score: the prompt as sent and the raw reply."""

    model: str
    prompt: str
    reply: str
    truncated: bool = False


class ExportedResult(Record):
    """One target's result on one case, as the suite stores it (`ExecutionRecord`), with
    the judge calls behind its scores per role (empty for code, or where the suite's
    transcript cap left them out)."""

    verdict: Verdict
    scores: dict[str, list[float | None]]
    normalised: dict[str, list[float | None]]
    tolerance: float | None
    error: str | None
    detail: str
    definition_sha256: str | None
    transcripts: dict[str, list[ExportedCall]] = Field(default_factory=dict)


class ExportedCase(Record):
    """One validated case: what it tests, its texts, where it came from, and the results.

    ``case_index`` is the case's position in its recipe's family; ``example_index`` and
    ``example`` are the source example (its index in the suite's examples and its fields)
    the variants were written from.
    """

    case_id: str
    recipe_id: str
    recipe_name: str
    capability_id: str
    capability_name: str | None
    requirement: Requirement
    relation: Relation
    case_index: int
    example_index: int
    example: dict[str, str]
    notes: str
    variants: dict[str, str]
    results: dict[str, ExportedResult]


def validated_cases(snapshot: SuiteSnapshot) -> list[tuple[Recipe, Case]]:
    """The cases `sane execute` runs, in its order (sane.validators.families)."""
    return executable_cases(
        snapshot.recipes,
        snapshot.cases,
        snapshot.families,
        snapshot.realization,
        snapshot.applicability,
    )


def _calls(
    execution: ExecutionRecord, transcripts: Mapping[str, Transcript]
) -> dict[str, list[ExportedCall]]:
    return {
        role: [
            ExportedCall(model=t.model, prompt=t.prompt, reply=t.reply, truncated=t.truncated)
            for t in (transcripts.get(key) for key in keys)
            if t is not None
        ]
        for role, keys in execution.transcripts.items()
    }


def _result(execution: ExecutionRecord, transcripts: Mapping[str, Transcript]) -> ExportedResult:
    return ExportedResult(
        verdict=execution.verdict,
        scores=execution.scores,
        normalised=execution.normalised,
        tolerance=execution.tolerance,
        error=execution.error,
        detail=execution.detail,
        definition_sha256=execution.definition_sha256,
        transcripts=_calls(execution, transcripts),
    )


def export_cases(
    snapshot: SuiteSnapshot, transcripts: Mapping[str, Transcript] | None = None
) -> list[ExportedCase]:
    """The suite's validated cases with every target's stored result on each, and the
    judge calls behind them from ``transcripts`` (default: the snapshot's, those behind
    faults; `sane export` passes every one the suite holds).

    An execution whose recipe does not match its case's is left out, as the report leaves it
    out; the store keeps one execution per target and case, so there is nothing to merge.
    """
    capabilities = {capability.id: capability for capability in snapshot.capabilities}
    calls = snapshot.transcripts if transcripts is None else transcripts
    executions: dict[str, list[ExecutionRecord]] = {}
    planted = {t.config.name for t in snapshot.targets if is_control(t.config)}
    for execution in snapshot.executions:
        if execution.target not in planted:  # the null scorers are reported apart
            executions.setdefault(execution.case_id, []).append(execution)
    exported = []
    for recipe, case in validated_cases(snapshot):
        capability = capabilities.get(recipe.capability_id)
        results = {
            execution.target: _result(execution, calls)
            for execution in sorted(executions.get(case.id, []), key=lambda e: e.target)
            if execution.recipe_id == recipe.id
        }
        exported.append(
            ExportedCase(
                case_id=case.id,
                recipe_id=recipe.id,
                recipe_name=recipe.name,
                capability_id=recipe.capability_id,
                capability_name=capability.name if capability is not None else None,
                requirement=recipe.requirement,
                relation=recipe.relation,
                case_index=case.index,
                example_index=case.example_index,
                example=dict(case.example),
                notes=case.notes,
                variants=dict(case.variants),
                results=results,
            )
        )
    return exported


# -------------------------------------------------------------------------- writers


def write_jsonl(cases: Iterable[ExportedCase], handle: TextIO) -> None:
    """One JSON object per line, keys in :class:`ExportedCase` order."""
    handle.writelines(
        json.dumps(case.model_dump(mode="json"), ensure_ascii=False) + "\n" for case in cases
    )


RESULT_FIELDS = (
    "verdict", "scores", "normalised", "tolerance", "error", "detail", "definition_sha256",
    "transcripts",
)  # fmt: skip
_CASE_COLUMNS = [
    "case_id", "recipe_id", "recipe_name", "capability_id", "capability_name", "requirement",
    "relation_kind", "relation", "case_index", "example_index", "notes",
]  # fmt: skip


def _cell(value: Any) -> str:
    """A CSV cell: empty for a missing value, JSON for nested values, text otherwise."""
    if value is None:
        return ""
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _ordered(keys: Iterable[str]) -> list[str]:
    """Distinct keys in first-seen order (variant roles, example fields)."""
    return list(dict.fromkeys(keys))


def csv_columns(cases: list[ExportedCase]) -> list[str]:
    """The header: case columns, ``example.FIELD``, ``variant.ROLE``, then for each target
    (sorted by name) its ``FIELD.TARGET`` result columns."""
    fields = _ordered(name for case in cases for name in case.example)
    roles = _ordered(role for case in cases for role in case.variants)
    targets = sorted({target for case in cases for target in case.results})
    return (
        _CASE_COLUMNS
        + [f"example.{name}" for name in fields]
        + [f"variant.{role}" for role in roles]
        + [f"{field}.{target}" for target in targets for field in RESULT_FIELDS]
    )


def csv_row(case: ExportedCase) -> dict[str, str]:
    data = case.model_dump(mode="json")
    row = {name: _cell(data.get(name)) for name in _CASE_COLUMNS if name in data}
    row["relation_kind"] = data["relation"]["kind"]
    row |= {f"example.{name}": text for name, text in case.example.items()}
    row |= {f"variant.{role}": text for role, text in case.variants.items()}
    for target, result in data["results"].items():
        row |= {f"{field}.{target}": _cell(result[field]) for field in RESULT_FIELDS}
    return row


def write_csv(cases: Iterable[ExportedCase], handle: TextIO) -> None:
    """One row per case; a column a case has no value for is an empty cell. No cell, header
    included, is a spreadsheet formula (sane.spreadsheet_cells)."""
    cases = list(cases)
    columns = csv_columns(cases)
    writer = csv.writer(handle)
    writer.writerow([safe_cell(column) for column in columns])
    for case in cases:
        row = csv_row(case)
        writer.writerow([safe_cell(row.get(column, "")) for column in columns])


WRITERS: dict[str, Callable[[Iterable[ExportedCase], TextIO], None]] = {
    "jsonl": write_jsonl,
    "csv": write_csv,
}


def check_format(format: str) -> ExportFormat:
    """The format, or an InputError naming the choices (checked before the suite is read)."""
    if format not in WRITERS:
        raise InputError(None, "--format", f"unknown format '{format}' ({', '.join(FORMATS)})")
    return format  # type: ignore[return-value]


def write_export(cases: list[ExportedCase], format: str, out: Path) -> None:
    """Write the export to `out` all at once (sane.output_files): a failed export leaves an
    existing file as it was and never leaves half a file under its name."""
    writer = WRITERS[check_format(format)]
    write_atomic(out, lambda handle: writer(cases, handle), "--out")
