"""`sane init [NAME]`: a starter folder for testing your own judge (sane.scaffold); with
`--pairwise`, for a judge that compares two answers."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sane.cli._common import app, errors_to_exit_codes, say
from sane.output_files import check_output_folder


@app.command()
def init(
    name: Annotated[
        str | None,
        typer.Argument(
            help="The judge's name: its folder and its spec's name "
            "(default my-judge, or my-pairwise-judge with --pairwise).",
            show_default=False,
        ),
    ] = None,
    folder: Annotated[
        Path | None,
        typer.Option("--dir", help="Write into this folder instead of ./NAME."),
    ] = None,
    pairwise: Annotated[
        bool,
        typer.Option(
            "--pairwise",
            help="A comparative judge: it compares two answers to one question and says "
            "which is better (compared_fields, output type pairwise).",
        ),
    ] = False,
) -> None:
    """Write a working starter: a spec, examples, a rubric, a python target, scripted
    answers for an offline first run, a CI gate and a README that says how to run them."""
    from sane.scaffold import write_starter

    name = name or ("my-pairwise-judge" if pairwise else "my-judge")
    with errors_to_exit_codes():
        where = folder or Path(name)
        check_output_folder(where, "--dir" if folder else "NAME")
        written = write_starter(where, name, "pairwise" if pairwise else "pointwise")
    say(f"wrote {len(written)} files into {where}/: " + ", ".join(p.name for p in written))
    target = "overlap" if pairwise else "overlap --target rouge-l"
    say(
        f"next, offline in seconds: cd {where} && sane generate spec.yaml --model scripted "
        f"--script rules.yaml --suite suite.db && sane execute suite.db --spec spec.yaml "
        f"--target {target} && sane report suite.db (the README has the rest)",
    )
