"""`sane generate` and `sane execute`: build a suite, then run it against targets."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

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
    print_ways_out,
    progress_display,
    say,
)
from sane.cli._comparison import print_comparisons
from sane.cli._execute_options import execute_options
from sane.cli._llm_options import llm_options
from sane.cli._run_options import run_options
from sane.errors import printable
from sane.llm import LLMSettings
from sane.records import ExecuteConfig, ExecutionRecord, RunConfig, SuiteSnapshot

if TYPE_CHECKING:
    from sane.reporting import ReviewSummary


@app.command()
@llm_options()
@run_options(resumable=True)
def generate(
    ctx: typer.Context,
    spec: Annotated[
        str | None,
        typer.Argument(
            help="Scorer spec YAML, or builtin:NAME; or, alone, a suite file to resume or "
            "re-decide from the options it stores."
        ),
    ] = None,
    suite: Annotated[Path | None, typer.Option(help="Suite file to create or resume.")] = None,
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
    """Derive, validate and store a scorer-specific test suite (qualifying its oracle first);
    `sane generate SUITE.db` resumes one from the options it stores."""
    from sane import api

    with errors_to_exit_codes():
        spec, suite = _spec_and_suite(spec, suite)
        resuming = run is None or spec is None
        if resuming:
            _refuse_new_options(ctx, suite, spec)
    assert suite is not None
    if dry_run:
        _dry_run(spec, run, examples, skip_qualify)
        return
    before = _review_of(suite) if resuming else None
    with errors_to_exit_codes(), progress_display(not quiet) as progress:
        if resuming:
            snapshot = api.resume(suite, llm=llm, progress=progress, qualify=not skip_qualify)
        else:
            assert spec is not None and run is not None
            snapshot = api.generate(
                spec,
                suite=suite,
                config=run,
                examples=examples,
                llm=llm,
                progress=progress,
                qualify=not skip_qualify,
            )
    _generated(snapshot, suite, before)


def _spec_and_suite(spec: str | None, suite: Path | None) -> tuple[str | None, Path]:
    """(spec, suite) from the command line: `sane generate SUITE.db` names the suite alone."""
    from sane.errors import InputError

    if suite is None:
        if spec is not None and _is_suite(Path(spec)):
            return _spec_and_suite(None, Path(spec))
        raise InputError(None, "--suite", "missing: the suite file to create or resume")
    if spec is None and not suite.is_file():
        raise InputError(
            str(suite),
            "SPEC",
            f"no such suite yet: start it with `sane generate SPEC --model MODEL --suite {suite}`",
        )
    return spec, suite


def _is_suite(path: Path) -> bool:
    """A suite file given where a spec may stand: a `.db` name, or an SQLite file."""
    if path.suffix == ".db":
        return True
    try:
        with path.open("rb") as handle:
            return handle.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def _refuse_new_options(ctx: typer.Context, suite: Path, spec: str | None) -> None:
    """A resumed suite runs with the configuration it stores: a run option given with it
    would be silently ignored, so it is refused, naming the way to a new configuration."""
    from sane.cli._run_options import OPTIONS
    from sane.errors import InputError

    if not suite.is_file():
        raise InputError(str(suite), "--model", "missing: a new suite needs an agent model")
    given = [
        name
        for name in [*OPTIONS, "examples"]
        # by name: typer may bring its own copy of click's ParameterSource
        if getattr(ctx.get_parameter_source(name), "name", None) == "COMMANDLINE"
    ]
    if given:
        option = "--" + given[0].replace("_", "-")
        raise InputError(
            str(suite),
            option,
            "this suite resumes with the options it stores; another configuration needs a "
            "new --suite file (with --model)",
        )
    if spec is not None:
        say(f"{suite}: resuming from the spec, examples and options it stores", to=err)


def _dry_run(
    spec: str | None, run: RunConfig | None, examples: Path | None, skip_qualify: bool
) -> None:
    from sane.errors import InputError
    from sane.pipeline.estimate import estimate_inputs, render_estimate

    with errors_to_exit_codes():
        if spec is None or run is None:
            raise InputError(None, "--dry-run", "estimates a new suite: give SPEC and --model")
        plan = estimate_inputs(spec, run, examples=examples)
    say(render_estimate(plan))
    qualify_calls = 0
    if not skip_qualify:
        from sane.qualification.qualify import quick_calls

        qualify_calls = quick_calls()
        say(
            f"  plus the oracle's qualification first: up to {qualify_calls} calls per "
            "oracle model (cached; --skip-qualify skips it)",
        )
    from sane.pipeline.estimate_time import wall_time_line

    line = wall_time_line(plan, qualify_calls, run.oracle_models)
    if line is not None:
        say(line)


def _review_of(suite: Path) -> ReviewSummary | None:
    """The review in force in a suite before a run (None: none, or no suite yet)."""
    from sane import api

    with errors_to_exit_codes():
        return api.report(suite).review if suite.is_file() else None


def _generated(snapshot: SuiteSnapshot, suite: Path, before: ReviewSummary | None) -> None:
    """What a generate run leaves: the validity lines, the funnel, what a review in force
    now covers, and the ways out of a dead end."""
    from sane.reporting import build_report

    report = build_report(snapshot)
    funnel = report.validity
    print_validity(funnel, report.review)
    say(
        f"suite {suite}: {funnel.candidate_recipes} candidate recipes, "
        f"{funnel.aligned_recipes} aligned, {funnel.validated_families} validated families",
        to=err,
    )
    review = report.review
    if before is not None and review is not None:
        new = review.questions - review.decided_by_person
        say(
            f"re-decided with the review in force: {review.decided_by_person} of "
            f"{review.questions} questions decided by a person"
            + (
                f"; {new} decided by the panel (new since the review, or never reviewed): "
                f"answer them at /review (`sane view {suite}`)"
                if new
                else ""
            ),
            to=err,
        )
    print_ways_out(report, suite)


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
    searched = execution is not None and execution.max_target_calls > 0
    if searched:
        print_inflation(api.report(suite).inflation)
    audited = print_comparisons(api.report(suite))  # a comparative suite's, oracle-free
    if not records and not searched and not audited:
        print_ways_out(api.report(suite), suite)
        raise fail(
            EXIT_NOTHING_MEASURED,
            f"nothing to run: {suite} has no validated case for these targets (see the ways "
            "out above, or --max-target-calls N for the oracle-free search)",
        )
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
