"""`sane library add|stats`: accumulate aligned recipes across suites and count them.

Seeding a new suite with reused recipes is `sane generate ... --generator library:FILE`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from sane.cli._common import app, errors_to_exit_codes, out, say

library_app = typer.Typer(help="The recipe library: aligned recipes across suites and scorers.")
app.add_typer(library_app, name="library")

LibraryFile = Annotated[Path, typer.Option("--library", help="Library file (SQLite).")]


@library_app.command("add")
def add(
    suites: Annotated[list[Path], typer.Argument(help="Suite file(s) to add.")],
    library: LibraryFile,
) -> None:
    """Add the aligned recipes of one or more suites to the library (re-adding replaces)."""
    with errors_to_exit_codes():
        from sane.suites.recipe_library import RecipeLibrary

        store = RecipeLibrary(library, create=True)
        try:
            results = [store.add_suite(suite) for suite in suites]
        finally:
            store.close()
    for suite, result in zip(suites, results, strict=True):
        say(
            f"{suite}: scorer {result.scorer}, {result.aligned} aligned recipes "
            f"({result.validated} validated), {result.new_keys} new; "
            f"library holds {result.library_unique} unique aligned recipes",
        )


@library_app.command("stats")
def stats(
    library: LibraryFile,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Unique aligned recipes per scorer and over scorer subsets (SANE section 5.1)."""
    with errors_to_exit_codes():
        from sane.suites.recipe_library import RecipeLibrary

        store = RecipeLibrary(library)
        try:
            result = store.stats()
        finally:
            store.close()
    if as_json:
        sys.stdout.write(json.dumps(result.model_dump(mode="json"), indent=2) + "\n")
        return
    scorers = Table(
        title=f"{result.unique_aligned} unique aligned recipes "
        f"({result.unique_validated} from validated families)"
    )
    for column in ("scorer", "unique aligned", "validated"):
        scorers.add_column(column)
    for name, count in result.scorers.items():
        scorers.add_row(name, str(count), str(result.validated.get(name, 0)))
    out.print(scorers)
    subsets = Table(title="Unique aligned recipes over all scorer subsets of each size")
    for column in ("scorers", "subsets", "mean", "min", "max"):
        subsets.add_column(column)
    for row in result.subsets:
        subsets.add_row(
            str(row.size), str(row.subsets), f"{row.mean:.1f}", str(row.min), str(row.max)
        )
    out.print(subsets)
