"""What a report says first: one verdict on the suite's validity, and the way out of a dead end.

Why one place: the terminal summary, `sane generate`'s and `sane execute`'s last lines, the
markdown and the HTML report all lead with these lines, and they must say the same thing. A
suite whose decisions a person made has one verdict, the person's: the panel's record on its
controls and its oracle's qualification are then shown as the panel's, not in force, never
as a red warning beside "the faults below are evidence". And a suite that cannot show
evidence (no validated family, a panel that failed its controls, an oracle that did not
qualify) names its ways out, each with its command.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sane.reporting._models import Funnel, Report, ReviewSummary

SUITE = "SUITE.db"  # the suite's path where a report does not know it (a file can move)
NOT_IN_FORCE = "Not in force (a person decided every question): the panel's record: "
NO_CONTROLS = "This suite has no planted controls: its panel's error is unmeasured."


@dataclass(frozen=True)
class TrustLine:
    """One line of what a report says first; `mark` names it for a page's scripts and tests
    (`oracle-unqualified`, `controls-failed`, ...), `warning` makes it an alarm."""

    text: str
    warning: bool
    mark: str


def trust_items(funnel: Funnel, review: ReviewSummary | None = None) -> list[TrustLine]:
    """What every format says first: a person's review in force, whether the oracle
    qualified, then how the panel did on its planted controls. Where a person decided every
    question, the panel's record is shown as not in force, never as an alarm."""
    by_person = review is not None and review.complete
    lines = [] if review is None else [TrustLine(review.summary, False, "reviewed")]
    status, controls = funnel.qualification, funnel.controls
    if status is not None:
        mark = "oracle-qualified" if status.qualified else "oracle-unqualified"
        if by_person and not status.qualified:
            lines.append(TrustLine(NOT_IN_FORCE + status.summary, False, mark))
        else:
            lines.append(TrustLine(status.summary, not status.qualified, mark))
    if controls is None:
        lines.append(TrustLine(NO_CONTROLS, False, "controls-none"))
    else:
        mark = "controls-failed" if controls.failed else "controls-passed"
        if by_person and controls.failed:
            lines.append(TrustLine(NOT_IN_FORCE + controls.summary, False, mark))
        else:
            lines.append(TrustLine(controls.summary, controls.failed, mark))
    return lines


def trust_lines(funnel: Funnel, review: ReviewSummary | None = None) -> list[tuple[str, bool]]:
    """`trust_items` as (line, is a warning), for the terminal."""
    return [(item.text, item.warning) for item in trust_items(funnel, review)]


def dead_end(funnel: Funnel, review: ReviewSummary | None = None) -> str | None:
    """Why this suite cannot show evidence about its targets yet, or None where it can."""
    if review is not None and review.complete:
        return None
    if funnel.validated_families == 0:
        return "no validated family: there is nothing to run the targets on"
    if funnel.controls is not None and funnel.controls.failed:
        return "the panel failed its planted controls: its faults are not evidence"
    if funnel.qualification is not None and not funnel.qualification.qualified:
        if not funnel.qualification.models:  # --skip-qualify: never measured, not failed
            return "the oracle was never qualified (qualification skipped): its faults are not evidence"
        return "the oracle did not qualify: its faults are not evidence"
    return None


def ways_out(
    funnel: Funnel,
    review: ReviewSummary | None,
    model: str,
    suite: str = SUITE,
    *,
    comparative: bool = False,
) -> list[str]:
    """The dead end (`dead_end`) and each way out of it with its command; [] where none. A
    comparative suite's fixed set is the comparative baseline (fixed:pairwise)."""
    why = dead_end(funnel, review)
    if why is None:
        return []
    started = review is not None and review.decided_by_person > 0
    person = (
        f"finish the review: `sane view {suite}`, then open the /review page it serves; "
        f"{review.decided_by_person} of {review.questions} questions answered so far"
        if started and review is not None
        else f"decide the panel's questions yourself: `sane view {suite}`, then open the "
        "/review page it serves (each answer is in force at once)"
    )
    again = (
        f"then `sane generate {suite}` (writes the cases of the recipes you aligned, from the "
        f"options stored in the suite) and `sane execute {suite}`"
    )
    stronger = (
        "`sane qualify --oracle-model STRONG --quick` says whether it qualifies; then "
        f"`sane generate SPEC --model {model} --oracle-model STRONG --suite NEW.db`"
    )
    fixed = (
        f"`sane generate SPEC --model {model} --generator "
        f"{'fixed:pairwise' if comparative else 'fixed:jrh'} --suite NEW.db` "
        "(`sane generators` lists the sets)"
    )
    return [
        f"Dead end: {why}. Ways out:",
        f"1. {person}; {again}",
        f"2. a stronger oracle: {stronger}",
        f"3. a fixed recipe set instead of derived recipes: {fixed}",
    ]


def first_lines(report: Report) -> dict[str, Any]:
    """What the markdown and HTML reports begin with: `trust` (TrustLine list) and `ways_out`
    (with the suite's path written as SUITE.db: a report file does not know where it lies)."""
    return {
        "trust": trust_items(report.validity, report.review),
        "ways_out": ways_out(
            report.validity,
            report.review,
            report.suite.model,
            comparative=report.comparison_audit is not None,
        ),
    }
