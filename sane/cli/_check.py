"""`sane check`: a CI gate that fails (exit 5) when a target is outside a limit."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from sane.cli._common import (
    EXIT_GATE_FAILED,
    EXIT_NOTHING_MEASURED,
    TrustSuiteCode,
    app,
    errors_to_exit_codes,
    fail,
)
from sane.errors import InputError
from sane.output_files import write_text_atomic

if TYPE_CHECKING:
    from sane.reporting import GateFileSpec, Report


def _requirement_limits(values: list[str]) -> dict[str, int]:
    """Parse ``REQ=N`` pairs; REQ must be one of the six requirements."""
    from sane.records import Requirement

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


def _pass_rate_floors(values: list[str]) -> tuple[float | None, dict[str, float]]:
    """Parse ``R`` (every target) and ``TARGET=R`` values of --min-pass-rate."""
    every: float | None = None
    per_target: dict[str, float] = {}
    for value in values:
        name, sep, number = value.rpartition("=")
        try:
            rate = float(number)
        except ValueError:
            rate = float("nan")
        if not 0.0 <= rate <= 1.0 or (sep and not name.strip()):
            raise InputError(
                None, "--min-pass-rate", f"expected R or TARGET=R with R in [0, 1]; got {value!r}"
            )
        if sep:
            per_target[name.strip()] = rate
        else:
            every = rate
    return every, per_target


def _gate_file(config: Path | None) -> GateFileSpec | None:
    """The gate file's limits and targets (the file the pytest plugin collects, checked
    the same way: the first bad field is named)."""
    from sane.inputs import load_record_file
    from sane.reporting import GateFileSpec

    return load_record_file(config, GateFileSpec, "gate file") if config is not None else None


def _human_report(
    suite: Path,
    data: Path,
    label_field: str | None,
    binary: bool,
    field: list[str] | None,
    threshold: float,
    trust_suite_code: bool,
    bar: float | None,
) -> Report:
    """The report with the targets' agreement with labelled data, as `sane rank` builds it."""
    from sane.cli._report import _parse_fields, _rank_report

    return _rank_report(
        suite,
        human=None,
        human_data=data,
        label_field=label_field,
        binary=binary,
        fields=_parse_fields(field),
        limit=None,
        invert_labels=False,
        targets=None,
        timeout=60.0,
        llm=None,
        trust_suite_code=trust_suite_code,
        verdict_threshold=threshold,
        certify_at=bar,
    )


@app.command()
def check(
    suite: Annotated[Path, typer.Argument(help="Suite file.")],
    max_faults: Annotated[
        int | None, typer.Option(min=0, help="Most faults a target may have.")
    ] = None,
    max_faults_per_requirement: Annotated[
        list[str] | None,
        typer.Option(
            metavar="REQUIREMENT=N", help="REQUIREMENT=N: most faults per requirement; repeatable."
        ),
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
    require_qualified_oracle: Annotated[
        bool,
        typer.Option(help="Fail unless the suite's oracle qualified for its panel (sane qualify)."),
    ] = False,
    max_inflation: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            max=1.0,
            help="Most score inflation (0-1) a target's strongest confirmed manipulation may "
            "give over its placebo (needs no oracle; sane execute --max-target-calls N).",
        ),
    ] = None,
    min_pass_rate: Annotated[
        list[str] | None,
        typer.Option(
            metavar="[TARGET=]RATE",
            help="Least pass rate (0-1) of every target, or of TARGET; repeatable.",
        ),
    ] = None,
    require_better_than_constant: Annotated[
        bool,
        typer.Option(
            help="Fail a target that no paired test shows better than the planted constant "
            "scorer (a scorer that never moves; every sane execute runs it)."
        ),
    ] = False,
    min_swap_consistency: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            max=1.0,
            metavar="RATE",
            help="Least swap consistency of each comparative judge (its comparison audit: 1 - "
            "the share of decisive verdicts that flip when the two candidates swap places).",
        ),
    ] = None,
    max_comparison_findings: Annotated[
        int | None,
        typer.Option(
            min=0,
            metavar="N",
            help="Most findings of each comparative judge's comparison audit (position, "
            "verbosity, self-praise, identity, ...).",
        ),
    ] = None,
    min_certification: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            max=1.0,
            metavar="BAR",
            help="Least Wilson lower bound of each target's TPR and TNR against binary human "
            "labels (needs --human-data, --label-field and --binary; sane rank --certify-at).",
        ),
    ] = None,
    human_data: Annotated[
        Path | None,
        typer.Option(help="Labelled data for --min-certification (as sane rank reads it)."),
    ] = None,
    label_field: Annotated[
        str | None, typer.Option(help="Label field of --human-data (dotted paths work).")
    ] = None,
    binary: Annotated[bool, typer.Option(help="The labels of --human-data are 0/1.")] = False,
    field: Annotated[
        list[str] | None,
        typer.Option(metavar="SPEC_FIELD=COLUMN", help="SPEC_FIELD=DATA_COLUMN; repeat."),
    ] = None,
    verdict_threshold: Annotated[
        float,
        typer.Option(min=0.0, max=1.0, help="A normalised score at least this is positive."),
    ] = 0.5,
    trust_suite_code: TrustSuiteCode = False,
    target: Annotated[
        list[str] | None,
        typer.Option(metavar="NAME", help="Check only these targets; default all."),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE",
            help="A gate file (sane_check.yaml, as the pytest plugin reads it): its limits "
            "and targets; an option given here wins over its field, SUITE over its suite.",
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the gate as JSON instead of markdown.")
    ] = False,
    junit: Annotated[
        Path | None,
        typer.Option(metavar="FILE", help="Also write the gate as a JUnit XML file."),
    ] = None,
) -> None:
    """Exit 5 when a target is outside a limit, 4 when something has no result to check;
    print a markdown summary for the CI log (or JSON with --json)."""
    from sane import api
    from sane.reporting import Limits, evaluate, gate_document, junit_xml, render_gate

    with errors_to_exit_codes():
        every, per_target = _pass_rate_floors(min_pass_rate or [])
        given = {
            "max_faults": max_faults,
            "max_faults_per_requirement": _requirement_limits(max_faults_per_requirement or []),
            "max_errors": max_errors,
            "max_control_false_accept": max_control_false_accept,
            "require_qualified_oracle": require_qualified_oracle or None,
            "max_inflation": max_inflation,
            "min_certification": min_certification,
            "require_better_than_constant": require_better_than_constant or None,
            "min_swap_consistency": min_swap_consistency,
            "max_comparison_findings": max_comparison_findings,
            "min_pass_rate": every,
            "min_pass_rate_per_target": per_target,
        }
        gate = _gate_file(config)
        base = gate.limits().model_dump() if gate is not None else {}
        limits = Limits.model_validate(
            base | {k: v for k, v in given.items() if v not in (None, {}, [])}
        )
        if gate is not None and target is None:
            target = gate.targets
        if not limits.any():
            raise InputError(
                None,
                "--max-faults",
                "give at least one limit (--max-faults, --max-faults-per-requirement, "
                "--max-errors, --min-pass-rate, --max-control-false-accept, "
                "--require-qualified-oracle, --max-inflation, --min-certification, "
                "--require-better-than-constant, --min-swap-consistency, "
                "--max-comparison-findings, or a --config file of them)",
            )
        report = (
            _human_report(
                suite,
                human_data,
                label_field,
                binary,
                field,
                verdict_threshold,
                trust_suite_code,
                limits.min_certification,
            )
            if human_data is not None
            else api.report(suite)
        )
        result = evaluate(report, limits, target)
        if junit is not None:
            write_text_atomic(junit, junit_xml(report, result), "--junit")
    if as_json:
        sys.stdout.write(json.dumps(gate_document(report, result), indent=2) + "\n")
    else:
        sys.stdout.write(render_gate(report, result))
    if not result.measured:
        raise fail(EXIT_NOTHING_MEASURED, f"error: {result.problems[0]}")
    if not result.passed:
        raise typer.Exit(EXIT_GATE_FAILED)
