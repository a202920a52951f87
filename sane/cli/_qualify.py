"""`sane qualify --oracle-model M`: is this oracle model good enough to judge a suite's tests?

Asks the model the panel's own questions about the operator grid on three criteria whose
every answer is known (sane.qualification), and prints its accuracy, order consistency and
false-accept rate with Wilson intervals, and for each panel whether it qualifies: whether
its accuracy is shown to reach what the validity sweep measured that panel needs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from sane.cli._common import Quiet, app, err, errors_to_exit_codes, progress_display, say
from sane.cli._llm_options import llm_options
from sane.errors import InputError
from sane.llm import LLMSettings
from sane.output_files import check_output_file, write_text_atomic

FORMATS = ("md", "json")


@app.command()
@llm_options()
def qualify(
    oracle_model: Annotated[
        list[str], typer.Option(metavar="MODEL", help="Oracle model to qualify; repeatable.")
    ],
    quick: Annotated[
        bool, typer.Option(help="131 calls (the size `sane generate` runs) instead of ~670.")
    ] = False,
    seed: Annotated[int, typer.Option(help="Sampling seed (and the quick run's sample).")] = 0,
    recorded: Annotated[
        bool,
        typer.Option(
            help="An embedded model's recorded quick verdict, when its model file and the "
            "questions still match, instead of minutes of calls; --no-recorded asks it."
        ),
    ] = True,
    format: Annotated[str, typer.Option("--format", "-f", help="md or json.")] = "md",
    out_file: Annotated[Path | None, typer.Option("--out", help="Write here, not stdout.")] = None,
    llm: LLMSettings | None = None,  # from the LLM options (sane.cli._llm_options)
    quiet: Quiet = False,
) -> None:
    """Measure an oracle model on exact ground truth, and say which panels it qualifies for."""
    from sane import api
    from sane.pipeline.run_config import run_config
    from sane.qualification.qualify import render

    with errors_to_exit_codes():
        if format not in FORMATS:
            raise InputError(None, "--format", f"unknown format '{format}' (md, json)")
        if out_file is not None:  # before the calls: a bad path must not cost them
            check_output_file(out_file, "--out")
        found = []
        with progress_display(not quiet) as progress:
            for model in oracle_model:
                config = run_config(model=model, oracle_models=[model], seed=seed)
                found.append(
                    api.qualify(
                        model,
                        quick=quick,
                        config=config,
                        llm=llm,
                        progress=progress,
                        recorded=recorded,
                    )
                )
    if format == "md":
        text = "\n\n".join(render(q) for q in found)
    else:
        text = json.dumps([q.model_dump(mode="json") for q in found], indent=2)
    if out_file is None:
        sys.stdout.write(text.rstrip("\n") + "\n")
        return
    with errors_to_exit_codes():
        write_text_atomic(out_file, text.rstrip("\n") + "\n", "--out")
    say(f"wrote {out_file}", to=err)
