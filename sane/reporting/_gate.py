"""The CI gate: compare each target's faults and errors with limits (`sane check`).

Why a separate step from the report: a pipeline needs a yes/no answer and an exit code,
plus a short markdown summary for its log (or JSON, or a JUnit file its CI shows as tests).
Count limits are upper bounds: a target passes when its count is at most the limit; pass-rate
limits are lower bounds: it passes when its pass rate is at least the limit. A target the spec declares but that has no result,
a target whose every case execution errored, or a suite with no executed target at
all, fails the gate: nothing measured is not "within limits" (the CLI gives such a
failure its own exit code). `max_control_false_accept` gates the suite itself: the share of
planted known-wrong items its oracle panel accepted (a suite without controls fails);
`require_qualified_oracle` too: its oracle must have qualified for its panel (sane qualify).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any, Literal
from xml.etree import ElementTree

from jinja2 import Environment
from pydantic import BaseModel, ConfigDict, Field, computed_field, field_validator

from sane.records import Requirement
from sane.reporting._models import Report
from sane.reporting.formatting import markdown_environment


class Limits(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_faults: int | None = Field(default=None, ge=0)
    max_faults_per_requirement: dict[str, int] = Field(default_factory=dict)

    @field_validator("max_faults_per_requirement")
    @classmethod
    def _known_requirements(cls, value: dict[str, int]) -> dict[str, int]:
        known = [r.value for r in Requirement]
        for name, limit in value.items():
            if name not in known:
                raise ValueError(f"{name!r} is not a requirement (one of {', '.join(known)})")
            if limit < 0:
                raise ValueError(f"{name}: the limit is negative")
        return value

    max_errors: int | None = Field(default=None, ge=0)
    max_control_false_accept: float | None = Field(default=None, ge=0.0, le=1.0)
    require_qualified_oracle: bool = False  # the suite's oracle qualified for its panel
    min_pass_rate: float | None = Field(default=None, ge=0.0, le=1.0)  # every target
    min_pass_rate_per_target: dict[str, float] = Field(default_factory=dict)
    # the most a target's strongest confirmed score inflation may be (0-1; no oracle)
    max_inflation: float | None = Field(default=None, ge=0.0, le=1.0)
    # the least Wilson lower bound of TPR and TNR against human labels (sane rank --certify-at)
    min_certification: float | None = Field(default=None, ge=0.0, le=1.0)
    # every target must be shown better than the planted constant scorer by a paired test
    require_better_than_constant: bool = False
    # a comparative judge's audit (sane.pairwise): the least swap consistency (1 - the share
    # of decisive verdicts that flip when the candidates swap places) and the most findings
    min_swap_consistency: float | None = Field(default=None, ge=0.0, le=1.0)
    max_comparison_findings: int | None = Field(default=None, ge=0)

    def any(self) -> bool:
        return (
            self.per_target()
            or self.min_certification is not None
            or self.require_better_than_constant
            or self.max_control_false_accept is not None
            or self.require_qualified_oracle
            or self.max_inflation is not None
            or self.comparative()
        )

    def comparative(self) -> bool:
        """Whether a limit reads the comparison audit of a comparative suite."""
        return self.min_swap_consistency is not None or self.max_comparison_findings is not None

    def per_target(self) -> bool:
        """Whether any limit applies to targets (the control limit applies to the suite)."""
        return self.every_target() or bool(self.min_pass_rate_per_target)

    def every_target(self) -> bool:
        """Whether a limit applies to every target (a TARGET=R floor names its own)."""
        return (
            self.max_faults is not None
            or self.max_errors is not None
            or bool(self.max_faults_per_requirement)
            or self.min_pass_rate is not None
        )

    def pass_rate_floor(self, target: str) -> float | None:
        return self.min_pass_rate_per_target.get(target, self.min_pass_rate)


class GateFileSpec(Limits):
    """A gate file of the pytest plugin (`sane_check*.yaml`): the suite, optionally the
    targets, and the limits under the names of `Limits`' fields."""

    suite: str  # relative to the gate file
    targets: list[str] | None = None

    def limits(self) -> Limits:
        return Limits.model_validate(self.model_dump(exclude={"suite", "targets"}))


class Check(BaseModel):
    """One measured count against one limit."""

    target: str  # a target's name, or "(oracle panel)" for the suite's own controls
    # "faults", "errors", "faults[REQUIREMENT]", "pass rate", "control false-accept rate" or
    # "score inflation"
    measure: str
    value: float | None  # None: nothing measured (no result, or no controls)
    limit: float
    bound: Literal["max", "min"] = "max"  # the value may be at most / at least the limit

    @computed_field  # type: ignore[prop-decorator]
    @property
    def passed(self) -> bool:
        if self.value is None:
            return False
        return self.value <= self.limit if self.bound == "max" else self.value >= self.limit


class GateResult(BaseModel):
    checks: list[Check]
    problems: list[str] = Field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def passed(self) -> bool:
        return not self.problems and all(check.passed for check in self.checks)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def measured(self) -> bool:
        """False when something the gate had to check has no measurement at all."""
        return not self.problems

    @property
    def failures(self) -> list[Check]:
        return [check for check in self.checks if not check.passed]


def _measures(report: Report, target: str, limits: Limits) -> list[Check]:
    """One check per limit for `target`; a value is None when the target has no result."""
    summary = report.targets.get(target)
    # faults are measured only where some case gave a pass or a fault; errors wherever it ran
    scored = summary if summary is not None and summary.passes + summary.faults > 0 else None
    rows: list[Check] = []
    if limits.max_faults is not None:
        value = scored.faults if scored else None
        rows.append(Check(target=target, measure="faults", value=value, limit=limits.max_faults))
    if limits.max_errors is not None:
        errors = report.errors.by_target.get(target, 0) if summary else None
        rows.append(Check(target=target, measure="errors", value=errors, limit=limits.max_errors))
    for requirement, limit in sorted(limits.max_faults_per_requirement.items()):
        group = scored.by_requirement.get(requirement) if scored else None
        value = None if scored is None else (group.faults if group else 0)
        rows.append(
            Check(target=target, measure=f"faults[{requirement}]", value=value, limit=limit)
        )
    floor = limits.pass_rate_floor(target)
    if floor is not None:
        rate = scored.pass_rate if scored else None
        rows.append(Check(target=target, measure="pass rate", value=rate, limit=floor, bound="min"))
    return rows


def _inflation_checks(
    report: Report, limit: float, targets: list[str] | None, problems: list[str]
) -> list[Check]:
    """Each searched target's strongest confirmed inflation (0 when none was confirmed); a
    target whose search failed, or a suite never searched, is a problem, never a pass."""
    searched = {r.target: r for r in report.inflation}
    names = list(targets) if targets else sorted(searched)
    if not names:
        problems.append(
            "no score-inflation search in this suite (run `sane execute` with --max-target-calls N)"
        )
    checks = []
    for name in names:
        result = searched.get(name)
        if result is None or result.error is not None:
            why = "was never searched" if result is None else f"failed: {result.error}"
            problems.append(f"target {name}'s score-inflation search {why}")
            value = None
        else:
            strongest = result.strongest
            value = strongest.inflation.mean if strongest is not None else 0.0
        checks.append(Check(target=name, measure="score inflation", value=value, limit=limit))
    return checks


def _comparison_checks(
    report: Report, limits: Limits, targets: list[str] | None, problems: list[str]
) -> list[Check]:
    """Each audited target's swap consistency and number of audit findings (a comparative
    suite's oracle-free checks); a target never audited, or whose audit failed, is a
    problem, never a pass, and so is a pointwise suite given these limits."""
    section = report.comparison_audit
    if section is None:
        problems.append("no comparison audit: this suite's spec is not comparative")
        return []
    audited = {t.target: t for t in section.targets}
    checks = []
    for name in list(targets) if targets else sorted(audited):
        audit = audited.get(name)
        if audit is None or audit.error is not None:
            why = "was never run" if audit is None else f"failed: {audit.error}"
            problems.append(f"target {name}'s comparison audit {why}")
        if limits.min_swap_consistency is not None:
            value = audit.swap_consistency if audit is not None and not audit.error else None
            checks.append(Check(target=name, measure="swap consistency", value=value,
                                limit=limits.min_swap_consistency, bound="min"))  # fmt: skip
        if limits.max_comparison_findings is not None:
            value = float(audit.findings) if audit is not None and not audit.error else None
            checks.append(Check(target=name, measure="comparison audit findings", value=value,
                                limit=limits.max_comparison_findings))  # fmt: skip
    return checks


def _constant_checks(report: Report, targets: list[str] | None, problems: list[str]) -> list[Check]:
    """1 where a paired test shows the target better than the planted constant scorer,
    0 where none does ("not shown better than a scorer that never moves")."""
    planted = report.planted_targets
    if planted is None or planted.constant_pass_share is None:
        problems.append("no planted null scorers in this suite: run `sane execute` again")
        return []
    flagged = set(planted.not_shown_better)
    return [
        Check(
            target=name,
            measure="shown better than a scorer that never moves",
            value=float(name not in flagged),
            limit=1.0,
            bound="min",
        )
        for name in (list(targets) if targets else sorted(report.targets))
    ]


def _certification_checks(
    report: Report, bar: float, targets: list[str] | None, problems: list[str]
) -> list[Check]:
    """Each target's certification against human labels: the smaller Wilson lower bound of
    its TPR and TNR must reach the bar; a report without binary labels is a problem."""
    alignment = report.human_alignment
    measured = {
        name: a.verdicts
        for name, a in (alignment.per_target if alignment else {}).items()
        if a.verdicts is not None
    }
    if not measured:
        problems.append("no binary human labels to certify against (--human-data with --binary)")
        return []
    checks = []
    for name in list(targets) if targets else sorted(measured):
        verdicts = measured.get(name)
        lows = [] if verdicts is None else [verdicts.tpr.lower, verdicts.tnr.lower]
        value = None if not lows or None in lows else min(lows)  # type: ignore[type-var]
        checks.append(
            Check(
                target=name,
                measure="human certification (least Wilson lower bound of TPR, TNR)",
                value=value,
                limit=bar,
                bound="min",
            )
        )
    return checks


def evaluate(report: Report, limits: Limits, targets: list[str] | None = None) -> GateResult:
    """Check every executed target (or the named ones) against the limits; a TARGET=R pass-rate
    floor checks its own target whatever the others.

    Errors per target are the report's ``errors.by_target``: execution errors plus logged
    errors naming the target (e.g. a failed tolerance measurement).
    """
    problems = []
    if targets:
        names = list(targets)
    elif limits.every_target():
        names = sorted(set(report.targets) | set(report.not_executed))
    else:  # only TARGET=R floors, or only the panel's controls: the suite's other targets wait
        names = []
    names += sorted(set(limits.min_pass_rate_per_target) - set(names))
    if limits.per_target() and not names:
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
    checks = [check for name in names for check in _measures(report, name, limits)]
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
    if limits.max_inflation is not None:
        checks += _inflation_checks(report, limits.max_inflation, targets, problems)
    if limits.require_better_than_constant:
        checks += _constant_checks(report, targets, problems)
    if limits.comparative():
        checks += _comparison_checks(report, limits, targets, problems)
    if limits.min_certification is not None:
        checks += _certification_checks(report, limits.min_certification, targets, problems)
    if limits.require_qualified_oracle:
        status = report.validity.qualification
        checks.append(
            Check(
                target="(oracle panel)",
                measure="oracle qualified",
                value=float(bool(status and status.qualified)),
                limit=1.0,
                bound="min",
            )
        )
    return GateResult(checks=checks, problems=problems)


@cache
def _environment() -> Environment:
    """The report's markdown environment: the gate is printed in CI logs and summaries, so its
    target names and summaries are inert markdown and printable text like the report's."""
    return markdown_environment("sane.reporting")


def render_gate(report: Report, result: GateResult) -> str:
    """The gate's markdown summary for a CI log."""
    return _environment().get_template("check.md.j2").render(report=report, result=result)


def gate_document(report: Report, result: GateResult) -> dict[str, Any]:
    """The gate as JSON (`sane check --json`): the verdict, every check, every problem."""
    controls, qualification = report.validity.controls, report.validity.qualification
    return {
        "suite": report.suite.scorer,
        "passed": result.passed,
        "measured": result.measured,
        "oracle_qualified": bool(qualification and qualification.qualified),
        "panel_failed_controls": bool(controls and controls.failed),
        "checks": [check.model_dump(mode="json") for check in result.checks],
        "problems": result.problems,
    }


def junit_xml(report: Report, result: GateResult) -> str:
    """The gate as a JUnit XML file, one test case per check, so a CI server lists each
    limit as a test; a check without a result, and each problem, is an error."""
    suite = ElementTree.Element(
        "testsuite",
        name=f"sane check: {report.suite.scorer}",
        tests=str(len(result.checks) + len(result.problems)),
        failures=str(sum(c.value is not None and not c.passed for c in result.checks)),
        errors=str(sum(c.value is None for c in result.checks) + len(result.problems)),
    )
    status = report.validity.qualification
    if status is not None:  # first, as in every report: whether the oracle qualified
        properties = ElementTree.SubElement(suite, "properties")
        ElementTree.SubElement(
            properties, "property", name="oracle_qualification", value=status.summary
        )
    for check in result.checks:
        case = ElementTree.SubElement(
            suite, "testcase", classname=f"sane.{check.target}", name=check.measure
        )
        relation = "at most" if check.bound == "max" else "at least"
        if check.value is None:
            ElementTree.SubElement(case, "error", message=f"{check.measure}: no result")
        elif not check.passed:
            message = f"{check.measure} is {check.value:.4g}; must be {relation} {check.limit:.4g}"
            ElementTree.SubElement(case, "failure", message=message)
    for problem in result.problems:
        case = ElementTree.SubElement(suite, "testcase", classname="sane", name="measured")
        ElementTree.SubElement(case, "error", message=problem)
    for element in suite.iter():
        element.attrib = {key: _xml_safe(value) for key, value in element.attrib.items()}
    return ElementTree.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"


# Characters XML 1.0 cannot hold at all, escaped or not (ElementTree would write them as they are,
# and no parser would read the file back).
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_safe(text: str) -> str:
    """Text an XML 1.0 file can hold: each invalid character written as its escape (`\\x1b`)."""
    return _XML_INVALID.sub(lambda match: repr(match.group(0))[1:-1], text)
