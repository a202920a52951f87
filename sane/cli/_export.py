"""`sane export`: the validated cases of a suite and each target's results, as JSONL or CSV.

Only the standard library, typer and the shared CLI module are imported here; the export
itself (pydantic records, the store) is imported when the command runs, so that `sane
--help` and every other command start without it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from sane.cli._common import app, err, errors_to_exit_codes, say


@app.command()
def export(
    suite: Annotated[Path, typer.Argument(metavar="SUITE", help="Suite file.")],
    format: Annotated[
        str,
        typer.Option(
            "--format",
            "-f",
            metavar="jsonl|csv",
            help="jsonl: one JSON object per case; csv: one row per case.",
        ),
    ] = "jsonl",
    out_file: Annotated[
        Path | None,
        typer.Option(
            "--out",
            metavar="FILE",
            help="Write here (replaced only once the export is complete), not stdout.",
        ),
    ] = None,
) -> None:
    """Export the validated cases (those `sane execute` runs) with every target's results."""
    with errors_to_exit_codes():
        from sane.export import WRITERS, check_format, export_cases, write_export
        from sane.suites.store import SuiteStore

        check_format(format)
        store = SuiteStore(suite, readonly=True)
        try:
            snapshot, transcripts = store.snapshot(), store.transcripts()
        finally:
            store.close()
        cases = export_cases(snapshot, transcripts)
        if out_file is not None:
            write_export(cases, format, out_file)
    if out_file is None:
        WRITERS[format](cases, sys.stdout)
    else:
        say(f"wrote {len(cases)} case(s) to {out_file}", to=err)
