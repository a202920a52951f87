"""The CI gate: compare each target's faults and errors with limits (`sane check`).

Why a separate step from the report: a pipeline needs a yes/no answer and an exit code,
plus a short markdown summary for its log. Limits are upper bounds: a target passes
when its count is at most the limit. A target the spec declares but that has no result,
a target whose every case execution errored, or a suite with no executed target at
all, fails the gate: nothing measured is not "within limits" (the CLI gives such a
failure its own exit code). `max_control_false_accept` gates the suite itself: the share of
planted known-wrong items its oracle panel accepted (a suite without controls fails).
"""

from __future__ import annotations

from functools import cache

from jinja2 import Environment, PackageLoader, StrictUndefined
from pydantic import BaseModel, ConfigDict, Field

from sane.report._models import Report


class Limits(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_faults: int | None = Field(default=None, ge=0)
    max_faults_per_requirement: dict[str, int] = Field(default_factory=dict)
    max_errors: int | None = Field(default=None, ge=0)
    max_control_false_accept: float | None = Field(default=None, ge=0.0, le=1.0)

    def any(self) -> bool:
        return (
            self.max_faults is not None
            or self.max_errors is not None
            or bool(self.max_faults_per_requirement)
            or self.max_control_false_accept is not None
        )


class Check(BaseModel):
    """One measured count against one limit."""

    target: str  # a target's name, or "(oracle panel)" for the suite's own controls
    measure: str  # "faults", "errors", "faults[REQUIREMENT]" or "control false-accept rate"
    value: float | None  # None: nothing measured (no result, or no controls)
    limit: float

    @property
    def passed(self) -> bool:
        return self.value is not None and self.value <= self.limit


class GateResult(BaseModel):
    checks: list[Check]
    problems: list[str] = Field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.problems and all(check.passed for check in self.checks)

    @property
    def measured(self) -> bool:
        """False when something the gate had to check has no measurement at all."""
        return not self.problems

    @property
    def failures(self) -> list[Check]:
        return [check for check in self.checks if not check.passed]


def _measures(report: Report, target: str, limits: Limits) -> list[tuple[str, int | None, int]]:
    """(measure, value, limit) rows; a value is None when the target has no result."""
    summary = report.targets.get(target)
    # faults are measured only where some case gave a pass or a fault; errors wherever it ran
    scored = summary if summary is not None and summary.passes + summary.faults > 0 else None
    rows: list[tuple[str, int | None, int]] = []
    if limits.max_faults is not None:
        rows.append(("faults", scored.faults if scored else None, limits.max_faults))
    if limits.max_errors is not None:
        errors = report.errors.by_target.get(target, 0) if summary else None
        rows.append(("errors", errors, limits.max_errors))
    for requirement, limit in sorted(limits.max_faults_per_requirement.items()):
        group = scored.by_requirement.get(requirement) if scored else None
        value = None if scored is None else (group.faults if group else 0)
        rows.append((f"faults[{requirement}]", value, limit))
    return rows


def evaluate(report: Report, limits: Limits, targets: list[str] | None = None) -> GateResult:
    """Check every executed target (or the named ones) against the limits.

    Errors per target are the report's ``errors.by_target``: execution errors plus logged
    errors naming the target (e.g. a failed tolerance measurement).
    """
    problems = []
    per_target = (
        limits.max_faults is not None
        or limits.max_errors is not None
        or bool(limits.max_faults_per_requirement)
    )
    names = list(targets) if targets else sorted(set(report.targets) | set(report.not_executed))
    if not per_target and not targets:
        names = []  # a gate on the panel's controls alone checks the suite, not its targets
    elif not names:
        problems.append("no target has been executed on this suite")
    for name in names:
        summary = report.targets.get(name)
        if summary is None:
            problems.append(f"target {name} has no results in this suite")
        elif summary.passes + summary.faults == 0:
            problems.append(
                f"target {name} produced no result: all {summary.errors} of its case "
                "executions errored"
            )
    checks = [
        Check(target=name, measure=measure, value=value, limit=limit)
        for name in names
        for measure, value, limit in _measures(report, name, limits)
    ]
    if limits.max_control_false_accept is not None:
        controls = report.validity.controls
        rate = controls.false_accept.rate if controls else None
        if rate is None:
            problems.append(
                "this suite has no planted controls, so the panel's false-accept rate is "
                "unknown (regenerate it with this version of sane)"
            )
        checks.append(
            Check(
                target="(oracle panel)",
                measure="control false-accept rate",
                value=rate,
                limit=limits.max_control_false_accept,
            )
        )
    return GateResult(checks=checks, problems=problems)


@cache
def _environment() -> Environment:
    return Environment(
        loader=PackageLoader("sane.report", "templates"),
        undefined=StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render_gate(report: Report, result: GateResult) -> str:
    """The gate's markdown summary for a CI log."""
    return _environment().get_template("check.md.j2").render(report=report, result=result)
