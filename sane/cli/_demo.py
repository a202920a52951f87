"""`sane demo`: generate, execute and report on a built-in spec with the embedded models."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from sane.cli._common import (
    Quiet,
    app,
    err,
    errors_to_exit_codes,
    out,
    print_inflation,
    print_validity,
    progress_display,
    say,
)
from sane.cli._llm_options import llm_options
from sane.cli._options import Option, fields_of, option_group
from sane.demo import DemoPlan
from sane.llm import LLMSettings
from sane.reporting.formatting import RANK_MEANING
from sane.reporting.formatting import rank as rank_label

if TYPE_CHECKING:
    from sane.reporting import Report


def _plan_option(name: str, field: str, option: Any) -> Option:
    """An option for a field of the demo's plan (its default is the plan's own)."""
    return Option(name, field, Annotated[DemoPlan.model_fields[field].annotation, option])


PLAN_OPTIONS: dict[str, Option] = {
    option.name: option
    for option in (
        _plan_option("spec", "spec", typer.Option(help="Built-in spec or spec file.")),
        _plan_option("model", "model", typer.Option(help="Agent and oracle model.")),
        Option(
            "target",
            "targets",
            Annotated[
                list[str] | None,
                typer.Option(
                    metavar="NAME",
                    help="Target to run (repeatable; default: five of the spec's local targets, all but smollm-judge).",
                ),
            ],
        ),
        _plan_option(
            "panel",
            "panel",
            typer.Option(
                help="plain (the demo's default: the embedded oracle fails contrastive "
                "alignment), contrastive (sane generate's default) or blind."
            ),
        ),
        _plan_option(
            "vote_rationale",
            "vote_rationale",
            typer.Option(
                help="Votes write a rationale before their answer (off in the demo: on the "
                "embedded model it is most of what a vote generates, for no better answer)."
            ),
        ),
        _plan_option(
            "seed", "seed", typer.Option(help="Generation seed: another seed, another draw.")
        ),
        _plan_option(
            "max_target_calls",
            "max_target_calls",
            typer.Option(
                min=0,
                help="Target calls per target for the score-inflation search (no oracle); 0: none.",
            ),
        ),
    )
}


def _build_plan(values: dict[str, Any]) -> DemoPlan:
    """The plan from the options given (an option left out keeps the plan's default)."""
    fields = fields_of(PLAN_OPTIONS, values)
    return DemoPlan(**{field: value for field, value in fields.items() if value is not None})


@app.command()
@llm_options("cache", "script")
@option_group("plan", PLAN_OPTIONS, (), _build_plan, DemoPlan)
def demo(
    out_dir: Annotated[
        Path, typer.Option("--out", help="Folder for the suite and reports.")
    ] = Path("sane-demo"),
    quiet: Quiet = False,
    plan: DemoPlan | None = None,  # from the plan options above
    llm: LLMSettings | None = None,  # from the LLM options (sane.cli._llm_options)
) -> None:
    """The offline end-to-end run: a suite for a built-in spec, executed on local targets."""
    from sane.demo import run_demo

    plan = plan or DemoPlan()
    say(
        f"sane demo: {plan.spec} with {plan.model} as agent and oracle "
        f"({plan.capabilities} capabilities, {plan.cases} cases per recipe, {plan.votes} votes)",
        to=err,
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
    print_inflation(report.inflation)
    say(
        f"validity: {funnel.candidate_recipes} candidate recipes -> {funnel.aligned_recipes} "
        f"aligned -> {funnel.validated_families} validated families "
        f"({funnel.joint_valid_cases} of {funnel.cases} cases joint-valid)"
    )
    print_validity(funnel)
    if not report.ranking:
        say("targets: none run (no family was validated, so there is nothing to execute)")
    else:
        _print_ranking(report)
    say(f"suite: {result.suite}")
    say(f"JSON report: {result.json_report}")
    say(f"markdown report: {result.markdown_report}")
    say(f"HTML report: {result.html_report}")


def _print_ranking(report: Report) -> None:
    table = Table(title="targets")
    for column in ("rank", "target", "default score", "pass rate", "faults", "errors", "cases"):
        table.add_column(column)
    for entry in report.ranking:
        summary = report.targets[entry.target]
        table.add_row(
            rank_label(entry),
            entry.target,
            "-" if entry.default_score is None else f"{entry.default_score:.2f}",
            "-" if entry.pass_rate is None else f"{entry.pass_rate:.2f}",
            str(summary.faults),
            str(summary.errors),
            str(summary.cases_run),
        )
    table.caption = "; ".join(filter(None, (report.ranking_order, RANK_MEANING)))
    out.print(table)
