"""`sane generate` and `sane execute`: build a suite, then run it against targets."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sane.cli._common import (
    EXIT_NOTHING_MEASURED,
    Quiet,
    TrustSuiteCode,
    app,
    err,
    errors_to_exit_codes,
    fail,
    print_inflation,
    print_validity,
    progress_display,
    say,
)
from sane.cli._execute_options import execute_options
from sane.cli._llm_options import llm_options
from sane.cli._run_options import run_options
from sane.errors import printable
from sane.llm import LLMSettings
from sane.records import ExecuteConfig, ExecutionRecord, RunConfig


@app.command()
@llm_options()
@run_options()
def generate(
    spec: Annotated[str, typer.Argument(help="Scorer spec YAML, or builtin:NAME.")],
    suite: Annotated[Path, typer.Option(help="Suite file to create or resume.")],
    examples: Annotated[Path | None, typer.Option(help="Examples JSONL (overrides spec).")] = None,
    run: RunConfig | None = None,  # from the run options (sane.cli._run_options)
    llm: LLMSettings | None = None,  # from the LLM options (sane.cli._llm_options)
    quiet: Quiet = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the estimated calls and cost; run nothing.")
    ] = False,
    skip_qualify: Annotated[
        bool,
        typer.Option(
            "--skip-qualify",
            help="Do not qualify the oracle first (the reports then say it is unqualified).",
        ),
    ] = False,
) -> None:
    """Derive, validate and store a scorer-specific test suite (qualifying its oracle first)."""
    from sane import api
    from sane.estimate import estimate_inputs, render_estimate
    from sane.reporting import build_report

    assert run is not None
    if dry_run:
        with errors_to_exit_codes():
            plan = estimate_inputs(spec, run, examples=examples)
        say(render_estimate(plan))
        if not skip_qualify:
            from sane.qualification.qualify import quick_calls

            say(
                f"  plus the oracle's qualification first: up to {quick_calls()} calls per "
                "oracle model (cached; --skip-qualify skips it)",
            )
        return
    with errors_to_exit_codes(), progress_display(not quiet) as progress:
        snapshot = api.generate(
            spec,
            suite=suite,
            config=run,
            examples=examples,
            llm=llm,
            progress=progress,
            qualify=not skip_qualify,
        )
    funnel = build_report(snapshot).validity
    print_validity(funnel)
    say(
        f"suite {suite}: {funnel.candidate_recipes} candidate recipes, "
        f"{funnel.aligned_recipes} aligned, {funnel.validated_families} validated families",
        to=err,
    )


def _counts(records: list[ExecutionRecord]) -> str:
    faults = sum(r.verdict.value == "fault" for r in records)
    errors = sum(r.verdict.value == "error" for r in records)
    return f"{len(records)} case executions: {faults} faults, {errors} errors"


def run_summary(
    results: list[ExecutionRecord], new: list[ExecutionRecord], suite: Path
) -> list[str]:
    """What this run did (per target it ran), then the suite's totals, then the next step."""
    by_target: dict[str, list[ExecutionRecord]] = {}
    for record in new:
        by_target.setdefault(record.target, []).append(record)
    lines = [f"this run: {_counts(rs)} ({name})" for name, rs in sorted(by_target.items())]
    if not new:
        lines.append("this run: nothing new (every chosen target's results were already here)")
    lines.append(f"the suite, these targets: {_counts(results)}")
    lines.append(f"next: sane report {suite} (or sane rank {suite} to compare the targets)")
    return lines


@app.command()
@llm_options()
@execute_options()
def execute(
    suite: Annotated[Path, typer.Argument(help="Suite file.")],
    spec: Annotated[
        str | None,
        typer.Option(
            help="Add or replace targets from another spec of the same scorer (same name, "
            "criterion and fields) before running."
        ),
    ] = None,
    execution: ExecuteConfig | None = None,  # from the execution options
    llm: LLMSettings | None = None,  # from the LLM options (sane.cli._llm_options)
    quiet: Quiet = False,
    trust_suite_code: TrustSuiteCode = False,
) -> None:
    """Run the suite's validated families against target scorers."""
    from sane import api

    def notice(message: str) -> None:
        say(printable(message), to=err)

    with errors_to_exit_codes(), progress_display(not quiet) as progress:
        records = api.execute(
            suite,
            config=execution,
            spec=spec,
            llm=llm,
            progress=progress,
            trust_suite_code=trust_suite_code,
            notice=notice,
        )
    if execution is not None and execution.max_target_calls:
        print_inflation(api.report(suite).inflation)
    for line in run_summary(records, records.new, suite):
        say(line, to=err)
    failed = sorted(
        {r.target for r in records} - {r.target for r in records if r.verdict.value != "error"}
    )
    if failed:
        first = next((r.error for r in records if r.target == failed[0] and r.error), "")
        raise fail(
            EXIT_NOTHING_MEASURED,
            f"error: target {failed[0]} errored on every case ({len(failed)} target(s) "
            f"without a result: {', '.join(failed)}); first error: {first}",
        )
