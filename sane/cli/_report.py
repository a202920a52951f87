"""`sane report` and `sane rank`: read a suite and show what it found."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from sane import api
from sane.cli._common import app, err, errors_to_exit_codes, out
from sane.errors import InputError
from sane.report import render_markdown
from sane.report._html import suite_html


def _read_human(path: Path) -> dict[str, float]:
    """Rows of target,score (a header row is allowed)."""
    if not path.is_file():
        raise InputError(str(path), None, "file not found")
    scores: dict[str, float] = {}
    with path.open(newline="", encoding="utf-8") as handle:
        for number, row in enumerate(csv.reader(handle), start=1):
            if not row or not "".join(row).strip():
                continue
            if len(row) != 2:
                raise InputError(str(path), f"row {number}", "expected two columns: target,score")
            try:
                scores[row[0].strip()] = float(row[1])
            except ValueError:
                if number == 1:
                    continue
                raise InputError(str(path), f"row {number}.score", "not a number") from None
    if not scores:
        raise InputError(str(path), None, "no target,score rows")
    return scores


@app.command()
def report(
    suite: Annotated[Path, typer.Argument(help="Suite file.")],
    format: Annotated[str, typer.Option("--format", "-f", help="json, md or html.")] = "json",
    out_file: Annotated[Path | None, typer.Option("--out", help="Write here, not stdout.")] = None,
    human: Annotated[Path | None, typer.Option(help="CSV of target,human score.")] = None,
) -> None:
    """Print or write the suite's report."""
    renderers = {
        "json": lambda r: json.dumps(r.model_dump(mode="json"), indent=2),
        "md": render_markdown,
    }
    with errors_to_exit_codes():
        if format not in renderers and format != "html":
            raise InputError(None, "--format", f"unknown format '{format}' (json, md, html)")
        scores = _read_human(human) if human else None
        if format == "html":  # the page also shows each fault's recipe text
            text = suite_html(suite, human=scores)
        else:
            text = renderers[format](api.report(suite, human=scores))
    if out_file is None:
        sys.stdout.write(text + "\n")
    else:
        out_file.write_text(text + "\n", encoding="utf-8")
        err.print(f"wrote {out_file}")


@app.command()
def rank(
    suite: Annotated[Path, typer.Argument(help="Suite file.")],
    human: Annotated[Path | None, typer.Option(help="CSV of target,human score.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Rank the targets by pass rate, optionally against a human ranking."""
    with errors_to_exit_codes():
        result = api.report(suite, human=_read_human(human) if human else None)
    if as_json:
        payload = {
            "ranking": [e.model_dump(mode="json") for e in result.ranking],
            "span": result.span,
            "human_alignment": (
                result.human_alignment.model_dump(mode="json") if result.human_alignment else None
            ),
        }
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
        return
    table = Table(title=f"Ranking: {result.suite.scorer}")
    for column in ("rank", "target", "pass rate", "95% interval", "cases"):
        table.add_column(column)
    for entry in result.ranking:
        summary = result.targets[entry.target]
        low, high = summary.pass_rate_ci or (None, None)
        table.add_row(
            str(entry.rank or "-"),
            entry.target,
            "-" if entry.pass_rate is None else f"{entry.pass_rate:.3f}",
            "-" if low is None else f"[{low:.3f}, {high:.3f}]",
            str(summary.cases_run),
        )
    out.print(table)
    if result.human_alignment is not None:
        out.print(render_markdown_alignment(result.human_alignment))


def render_markdown_alignment(alignment: Any) -> str:
    return json.dumps(alignment.model_dump(mode="json"), indent=2)
