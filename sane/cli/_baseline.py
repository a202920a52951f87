"""`sane baseline`: derived versus fixed recipes on one scorer; `sane generators` lists them.

`sane baseline SPEC --model M --suite-dir DIR --generator fixed:jrh` generates (or
resumes) DIR/derived.db and DIR/fixed-jrh.db with the same settings, executes
the spec's targets on both unless --no-execute, and prints the side-by-side
comparison (markdown, or JSON with --format json); DIR/comparison.json keeps it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from sane.cli._common import (
    Quiet,
    app,
    err,
    errors_to_exit_codes,
    progress_display,
    say,
)
from sane.cli._execute_options import execute_options
from sane.cli._llm_options import llm_options
from sane.cli._run_options import run_options
from sane.errors import InputError
from sane.llm import LLMSettings
from sane.output_files import write_text_atomic
from sane.records import ExecuteConfig, RunConfig

FORMATS = ("md", "json")


def _render(comparison: Any, format: str) -> str:
    from sane.analyses.generator_comparison import render_comparison

    if format == "md":
        return render_comparison(comparison)
    return json.dumps(comparison.model_dump(mode="json"), indent=2)


@app.command()
@llm_options()
@execute_options()
@run_options(
    "model",
    "oracle_model",
    "votes",
    "cases",
    "tau",
    "seed",
    "capabilities",
    "recipes",
    "panel",
    "vote_rationale",
)
def baseline(
    spec: Annotated[str, typer.Argument(help="Scorer spec YAML, or builtin:NAME.")],
    suite_dir: Annotated[Path, typer.Option(help="Directory for the suites (one per generator).")],
    generator: Annotated[
        list[str] | None,
        typer.Option(
            metavar="GENERATOR",
            help="Fixed set(s) to compare with derived (default fixed:jrh, and fixed:pairwise "
            "for a comparative spec); repeatable.",
        ),
    ] = None,
    examples: Annotated[Path | None, typer.Option(help="Examples JSONL (overrides spec).")] = None,
    execute: Annotated[bool, typer.Option(help="Run the spec's targets on both suites.")] = True,
    format: Annotated[str, typer.Option("--format", "-f", help="md or json.")] = "md",
    out_file: Annotated[Path | None, typer.Option("--out", help="Write here, not stdout.")] = None,
    run: RunConfig | None = None,  # from the run options (sane.cli._run_options)
    execution: ExecuteConfig | None = None,  # from the execution options
    llm: LLMSettings | None = None,  # from the LLM options (sane.cli._llm_options)
    quiet: Quiet = False,
) -> None:
    """Compare derived recipes with a fixed recipe set on one scorer and example set."""
    from sane.analyses.baseline import run_baseline

    with errors_to_exit_codes():
        if format not in FORMATS:
            raise InputError(None, "--format", f"unknown format '{format}' (md, json)")
        with progress_display(not quiet) as progress:
            comparison = run_baseline(
                spec,
                suite_dir=suite_dir,
                generators=generator or None,  # None: the sets offered to the spec
                config=run,
                examples=examples,
                execute=execute,
                execution=execution,
                llm=llm,
                progress=progress,
            )
    text = _render(comparison, format)
    with errors_to_exit_codes():
        write_text_atomic(
            suite_dir / "comparison.json", _render(comparison, "json") + "\n", "--suite-dir"
        )
        if out_file is not None:
            write_text_atomic(out_file, text.rstrip("\n") + "\n", "--out")
    if out_file is None:
        sys.stdout.write(text.rstrip("\n") + "\n")
    else:
        say(f"wrote {out_file}", to=err)


@app.command()
def generators() -> None:
    """List the recipe generators: derived and the shipped fixed sets."""
    from sane.generators import available_generators

    for name in available_generators():
        say(name)
