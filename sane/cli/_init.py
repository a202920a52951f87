"""`sane init [NAME]`: a starter folder for testing your own judge (sane.scaffold)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sane.cli._common import app, errors_to_exit_codes, say
from sane.output_files import check_output_folder


@app.command()
def init(
    name: Annotated[
        str, typer.Argument(help="The judge's name: its folder and its spec's name.")
    ] = "my-judge",
    folder: Annotated[
        Path | None,
        typer.Option("--dir", help="Write into this folder instead of ./NAME."),
    ] = None,
) -> None:
    """Write a working starter: a spec, examples, a rubric, a python target, scripted
    answers for an offline first run, a CI gate and a README that says how to run them."""
    from sane.scaffold import write_starter

    with errors_to_exit_codes():
        where = folder or Path(name)
        check_output_folder(where, "--dir" if folder else "NAME")
        written = write_starter(where, name)
    say(f"wrote {len(written)} files into {where}/: " + ", ".join(p.name for p in written))
    say(
        f"next, offline in seconds: cd {where} && sane generate spec.yaml --model scripted "
        "--script rules.yaml --suite suite.db (the README has the rest)",
    )
