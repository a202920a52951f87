"""The report's section on comparative judges: each target's comparison audit (sane.pairwise),
findings first, then every check's numbers, and agreement with human pairwise verdicts
where `sane rank --human-data` gave them.

Why a section of its own, apart from the faults: the audit asks no oracle (each check is a
property any comparative judge must have whatever its criterion, or a bias measured against
a placebo of the same length and form), so its findings are evidence whatever the panel did
on its controls, and a reader comparing judges needs them before anything the panel decided.
A pointwise suite has no such section (None): its report is exactly what it was.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from sane._record import Record
from sane.comparison_record import ComparisonAudit, ComparisonCheck, Interval
from sane.pairwise import COMPARISON_KINDS
from sane.stats import PairwiseAgreement

if TYPE_CHECKING:
    from sane.reporting._build import ReportContext
    from sane.reporting._models import RankingEntry

BASIS = (
    "No oracle decides these checks: each is a property any comparative judge must have "
    "whatever its criterion (the mirror verdict when the candidates swap places, a tie "
    "between a text and itself), or a bias measured against a placebo of the same length "
    "and form. They are evidence whatever the panel did on its controls."
)


class CheckRow(ComparisonCheck):
    """A check as the report shows it: its record and the kind's title."""

    title: str


class ComparisonTarget(Record):
    """One comparative target's audit as the report shows it, beside its rank."""

    target: str
    rank: int | None = None  # its place in the suite's ranking by paired tests
    tied: bool = False  # another target shares that rank
    swap_consistency: float | None = None  # 1 - the share of decisive verdicts that flip
    swap_consistency_ci: Interval | None = None
    findings: int = 0
    examples: int = 0
    calls: int = 0
    failed_calls: int = 0
    first_failure: str | None = None
    error: str | None = None
    checks: list[CheckRow] = Field(default_factory=list)


class Headline(Record):
    """One line of the section's head: a finding, a failed audit, failed calls, or an
    audit that found nothing."""

    target: str
    text: str
    kind: Literal["finding", "error", "failed_calls", "none"]


class ComparisonSection(Record):
    """Findings first (one line each, target named), then each target's audit; with human
    pairwise verdicts, each target's agreement with them (sane.stats.pairwise_agreement)."""

    headlines: list[Headline] = Field(default_factory=list)
    basis: str = BASIS
    targets: list[ComparisonTarget] = Field(default_factory=list)
    pairwise_agreement: dict[str, PairwiseAgreement] = Field(default_factory=dict)
    human_source: str | None = None


def _finding_lines(audit: ComparisonAudit) -> list[Headline]:
    """Its findings, each a sentence with the target as its subject ("judge-v2 prefers
    position A (shown first): 31% of decisive verdicts flip on swap [24%, 39%]; ...")."""
    return [
        Headline(target=audit.target, text=f"{audit.target} {check.finding}", kind="finding")
        for check in audit.findings
    ]


def _status_line(audit: ComparisonAudit) -> Headline | None:
    """What else a reader must know of one audit: that it failed (an error, not a result),
    that it found nothing (on how much), or that some of its calls failed."""
    name, failed = audit.target, audit.failed_calls
    calls = f"{failed} of {audit.calls} calls failed, left out (first: {audit.first_failure})"
    if audit.error is not None:
        text = f"{name}: its comparison audit failed (an error, not a result): {audit.error}"
        return Headline(target=name, text=text, kind="error")
    if not audit.findings:
        measured = sum(check.value is not None and check.skipped is None for check in audit.checks)
        text = f"{name}: no comparative bias found ({measured} checks measured on "
        text += f"{audit.examples} examples)" + (f"; {calls}" if failed else "")
        return Headline(target=name, text=text, kind="none")
    return Headline(target=name, text=f"{name}: {calls}", kind="failed_calls") if failed else None


def headlines(audits: list[ComparisonAudit]) -> list[Headline]:
    """Every target's findings first, then each target's status line: what a reader must
    see first comes first."""
    findings = [line for audit in audits for line in _finding_lines(audit)]
    status = [line for audit in audits if (line := _status_line(audit)) is not None]
    return findings + status


def _row(check: ComparisonCheck) -> CheckRow:
    kind = COMPARISON_KINDS.get(check.kind)
    return CheckRow(**check.model_dump(), title=kind.title if kind else check.kind)


def _target(audit: ComparisonAudit, entry: RankingEntry | None) -> ComparisonTarget:
    return ComparisonTarget(
        target=audit.target, rank=entry.rank if entry else None,
        tied=entry.tied if entry else False, swap_consistency=audit.swap_consistency,
        swap_consistency_ci=audit.swap_consistency_ci, findings=len(audit.findings),
        examples=audit.examples, calls=audit.calls, failed_calls=audit.failed_calls,
        first_failure=audit.first_failure, error=audit.error,
        checks=[_row(check) for check in audit.checks],
    )  # fmt: skip


def comparison_section(
    audits: list[ComparisonAudit],
    ranking: list[RankingEntry],
    *,
    comparative: bool,
    human: Mapping[str, PairwiseAgreement] | None = None,
    human_source: str | None = None,
) -> ComparisonSection | None:
    """The section for a comparative suite's audits (None for a pointwise one): the targets
    in ranking order (the unranked after, by name), findings before every other line."""
    if not comparative:
        return None
    entries = {entry.target: entry for entry in ranking}
    order = {name: index for index, name in enumerate(entries)}
    shown = sorted(audits, key=lambda a: (order.get(a.target, len(order)), a.target))
    return ComparisonSection(
        headlines=headlines(shown),
        targets=[_target(audit, entries.get(audit.target)) for audit in shown],
        pairwise_agreement=dict(human or {}),
        human_source=human_source if human else None,
    )


def build(context: ReportContext) -> ComparisonSection | None:
    """The section from the report's context: the stored audits of the user's targets,
    ranked as the suite ranks them."""
    snapshot = context.snapshot
    audits = [a for a in snapshot.comparisons if a.target not in context.planted]
    return comparison_section(
        audits, context.ranking, comparative=snapshot.spec.comparative,
        human=context.human_pairwise, human_source=context.human_source,
    )  # fmt: skip
