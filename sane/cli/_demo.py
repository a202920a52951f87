"""`sane demo`: generate, execute and report on a built-in spec with the embedded models."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from sane.cli._common import (
    Quiet,
    app,
    err,
    errors_to_exit_codes,
    out,
    print_validity,
    progress_display,
)
from sane.cli._llm_options import llm_options
from sane.demo import DemoPlan
from sane.llm import LLMSettings

if TYPE_CHECKING:
    from sane.report import Report


@app.command()
@llm_options("cache", "script")
def demo(
    out_dir: Annotated[
        Path, typer.Option("--out", help="Folder for the suite and reports.")
    ] = Path("sane-demo"),
    spec: Annotated[str, typer.Option(help="Built-in spec or spec file.")] = DemoPlan().spec,
    model: Annotated[str, typer.Option(help="Agent and oracle model.")] = DemoPlan().model,
    target: Annotated[
        list[str] | None,
        typer.Option(
            metavar="NAME",
            help="Target to run (repeatable; default: the six built-in local targets).",
        ),
    ] = None,
    panel: Annotated[
        str,
        typer.Option(
            help="plain (the demo's default: the embedded oracle fails contrastive alignment), "
            "contrastive (sane generate's default) or blind."
        ),
    ] = DemoPlan().panel,
    vote_rationale: Annotated[
        bool,
        typer.Option(
            help="Votes write a rationale before their answer (off in the demo: on the embedded "
            "model it is most of what a vote generates, for no better answer)."
        ),
    ] = DemoPlan().vote_rationale,
    seed: Annotated[
        int, typer.Option(help="Generation seed: another seed, another draw.")
    ] = DemoPlan().seed,
    quiet: Quiet = False,
    llm: LLMSettings | None = None,  # from the LLM options (sane.cli._llm_options)
) -> None:
    """The offline end-to-end run: a suite for a built-in spec, executed on local targets."""
    from sane.demo import run_demo

    plan = DemoPlan(
        spec=spec,
        model=model,
        panel=panel,
        vote_rationale=vote_rationale,
        seed=seed,
        **({"targets": target} if target else {}),
    )
    err.print(
        f"sane demo: {plan.spec} with {plan.model} as agent and oracle "
        f"({plan.capabilities} capabilities, {plan.cases} cases per recipe, {plan.votes} votes)"
    )
    with errors_to_exit_codes(), progress_display(not quiet) as progress:
        result = run_demo(
            out_dir,
            plan=plan,
            llm=llm,
            progress=progress,
        )
    report = result.report
    funnel = report.validity
    out.print(
        f"validity: {funnel.candidate_recipes} candidate recipes -> {funnel.aligned_recipes} "
        f"aligned -> {funnel.validated_families} validated families "
        f"({funnel.joint_valid_cases} of {funnel.cases} cases joint-valid)"
    )
    print_validity(funnel)
    if not report.ranking:
        out.print("targets: none run (no family was validated, so there is nothing to execute)")
    else:
        _print_ranking(report)
    out.print(
        f"suite: {result.suite}\nJSON report: {result.json_report}\n"
        f"markdown report: {result.markdown_report}\nHTML report: {result.html_report}"
    )


def _print_ranking(report: Report) -> None:
    table = Table(title="targets")
    for column in ("rank", "target", "pass rate", "faults", "errors", "cases"):
        table.add_column(column)
    for entry in report.ranking:
        summary = report.targets[entry.target]
        table.add_row(
            str(entry.rank or "-"),
            entry.target,
            "-" if entry.pass_rate is None else f"{entry.pass_rate:.2f}",
            str(summary.faults),
            str(summary.errors),
            str(summary.cases_run),
        )
    out.print(table)
