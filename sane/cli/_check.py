"""`sane check`: a CI gate that fails (exit 1) when a target exceeds a fault or error limit."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from sane import api
from sane.cli._common import (
    EXIT_FAILED,
    EXIT_NOTHING_MEASURED,
    app,
    errors_to_exit_codes,
    fail,
)
from sane.errors import InputError
from sane.records import Requirement
from sane.report._gate import Limits, evaluate, render_gate


def _requirement_limits(values: list[str]) -> dict[str, int]:
    """Parse ``REQ=N`` pairs; REQ must be one of the six requirements."""
    known = [r.value for r in Requirement]
    limits: dict[str, int] = {}
    for value in values:
        name, sep, number = value.partition("=")
        name = name.strip()
        if not sep or name not in known:
            raise InputError(
                None,
                "--max-faults-per-requirement",
                f"expected REQUIREMENT=N with REQUIREMENT one of {', '.join(known)}; got {value!r}",
            )
        try:
            limits[name] = int(number)
        except ValueError:
            raise InputError(
                None, "--max-faults-per-requirement", f"{value!r}: N is not a whole number"
            ) from None
        if limits[name] < 0:
            raise InputError(None, "--max-faults-per-requirement", f"{value!r}: N is negative")
    return limits


@app.command()
def check(
    suite: Annotated[Path, typer.Argument(help="Suite file.")],
    max_faults: Annotated[
        int | None, typer.Option(min=0, help="Most faults a target may have.")
    ] = None,
    max_faults_per_requirement: Annotated[
        list[str] | None,
        typer.Option(help="REQUIREMENT=N: most faults per requirement; repeatable."),
    ] = None,
    max_errors: Annotated[
        int | None, typer.Option(min=0, help="Most errors a target may have.")
    ] = None,
    max_control_false_accept: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            max=1.0,
            help="Most share of planted known-wrong items the oracle panel may accept (0-1).",
        ),
    ] = None,
    target: Annotated[
        list[str] | None, typer.Option(help="Check only these targets; default all.")
    ] = None,
) -> None:
    """Exit 1 when any target exceeds a limit, 4 when something has no result to check;
    print a markdown summary for the CI log."""
    with errors_to_exit_codes():
        limits = Limits(
            max_faults=max_faults,
            max_faults_per_requirement=_requirement_limits(max_faults_per_requirement or []),
            max_errors=max_errors,
            max_control_false_accept=max_control_false_accept,
        )
        if not limits.any():
            raise InputError(
                None,
                "--max-faults",
                "give at least one limit (--max-faults, --max-faults-per-requirement, "
                "--max-errors, --max-control-false-accept)",
            )
        report = api.report(suite)
        result = evaluate(report, limits, target)
    sys.stdout.write(render_gate(report, result))
    if not result.measured:
        raise fail(EXIT_NOTHING_MEASURED, f"error: {result.problems[0]}")
    if not result.passed:
        raise typer.Exit(EXIT_FAILED)
