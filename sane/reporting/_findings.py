"""The findings headline: what every report says first, after whether its oracle can be trusted.

Why a record of its own: the terminal summary, the markdown, the HTML page and the JSON
(`findings`) must lead with the same sentences, so they are written once, here, from the
numbers the report already holds. A finding is a failed requirement or recipe of one target
(its faults among its judged cases, with a Wilson 95% interval that stays informative at 0 of
n and n of n) or a confirmed score-inflation exploit. Whether the panel's findings are evidence
is decided once for the suite: its panel passed its planted controls and its oracle qualified.
The exploits need no oracle, so they are evidence either way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from pydantic import Field

from sane._record import Record
from sane.comparison_record import ComparisonAudit
from sane.inflation_record import ROBUSTNESS, SearchResult
from sane.stats import pass_rate_ci

if TYPE_CHECKING:
    from sane.reporting._models import Funnel, ReviewSummary, TargetSummary

HEADLINE_RECIPES = 3  # recipes named in a target's headline sentence; the rest are counted


class FaultShare(Record):
    """Faults among judged cases (passes + faults), with the Wilson 95% interval of the share."""

    faults: int
    judged: int
    fault_rate: float
    ci: tuple[float, float]

    @classmethod
    def of(cls, faults: int, judged: int) -> FaultShare:
        return cls(
            faults=faults,
            judged=judged,
            fault_rate=faults / judged,
            ci=pass_rate_ci(faults, judged),
        )

    def words(self) -> str:
        low, high = self.ci
        return f"{self.faults} of {self.judged} cases [{low:.0%}, {high:.0%}]"


class RequirementFinding(FaultShare):
    requirement: str


class RecipeFinding(FaultShare):
    recipe_id: str
    recipe_name: str
    requirement: str


class ExploitFinding(Record):
    """A confirmed score-inflation exploit: oracle-free evidence."""

    family: str
    position: str
    text: str
    inflation: float
    ci: tuple[float, float]
    success_rate: float

    def words(self) -> str:
        low, high = self.ci
        return (
            f"{self.family} at the {self.position} inflates its score by {self.inflation:+.2f} "
            f"[{low:+.2f}, {high:+.2f}] over its placebo (oracle-free)"
        )


class TargetFindings(Record):
    """One target's findings, worst first, and the sentence that says them."""

    target: str
    judged: int
    faults: int
    errors: int
    requirements: list[RequirementFinding] = Field(default_factory=list)
    recipes: list[RecipeFinding] = Field(default_factory=list)
    exploits: list[ExploitFinding] = Field(default_factory=list)
    inflation_error: str | None = None
    # a comparative judge's audit findings (sane.pairwise), each a sentence: oracle-free
    comparison: list[str] = Field(default_factory=list)
    headline: str


class Findings(Record):
    """The report's headline. ``panel_evidence``: the findings decided through the panel
    (validated families) are evidence, because the panel passed its planted controls and its
    oracle qualified; ``basis`` says so, or why not, in one line."""

    panel_evidence: bool
    basis: str
    targets: list[TargetFindings] = Field(default_factory=list)


def _basis(
    validity: Funnel, review: ReviewSummary | None, audited: bool = False
) -> tuple[bool, str]:
    controls, qualification = validity.controls, validity.qualification
    why_not = []
    if controls is None:
        why_not.append("the suite has no planted controls, so its panel's error is unmeasured")
    elif controls.failed:
        why_not.append("the panel failed its planted controls")
    if qualification is not None and not qualification.qualified:
        why_not.append("the oracle is not qualified")
    reviewed = ""
    if review is not None:
        reviewed = " " + review.summary
        if review.complete:  # the person is the oracle: the panel's record no longer matters
            return True, (
                "The faults below are evidence: validity was decided by a person on every "
                f"question, who answered all {review.controls_answered} planted controls "
                "right."
            )
    if why_not:
        return False, (
            "The faults below are NOT evidence: "
            + " and ".join(why_not)
            + ". Only the oracle-free findings ("
            + ("score inflation, the comparison audit" if audited else "score inflation")
            + ") are."
            + reviewed
        )
    simulated = qualification is not None and any(m.simulated for m in qualification.models)
    return True, (
        "The faults below are evidence: they come from validated families, and the panel passed "
        "its planted controls"
        + (" with a qualified oracle" if qualification is not None else "")
        + (" (a SIMULATED oracle: this measures the method, not a model)" if simulated else "")
        + "."
        + reviewed
    )


def _headline(found: TargetFindings) -> str:
    if found.judged == 0 and not found.exploits and not found.comparison:
        parts = [f"{found.target}: no judged case"]
    elif found.requirements:
        failed = ", ".join(
            f"{r.requirement} ({r.faults} of {r.judged})" for r in found.requirements
        )
        shown = [f"{r.recipe_name}, {r.words()}" for r in found.recipes[:HEADLINE_RECIPES]]
        more = len(found.recipes) - HEADLINE_RECIPES
        if more > 0:
            shown.append(f"{more} more recipe(s)")
        parts = [f"{found.target} fails {failed}: " + "; ".join(shown)]
    elif found.judged:
        parts = [f"{found.target}: no fault in {found.judged} judged cases"]
    else:
        parts = [found.target]
    parts += [e.words() for e in found.exploits]
    parts += [f"{sentence} (comparison audit, oracle-free)" for sentence in found.comparison]
    if found.inflation_error:
        parts.append("its score-inflation search failed (an error, not a result)")
    if found.errors:
        parts.append(f"{found.errors} error(s), not counted")
    return "; ".join(parts) + "."


def build_findings(
    report_targets: Mapping[str, TargetSummary],
    inflation: list[SearchResult],
    validity: Funnel,
    review: ReviewSummary | None,
    comparisons: Sequence[ComparisonAudit] = (),
) -> Findings:
    """The headline of a report's targets (in the order given) and its evidence basis; a
    comparative suite's audit findings join each audited target's headline."""
    searched = {result.target: result for result in inflation}
    audits = {audit.target: audit for audit in comparisons}
    panel_evidence, basis = _basis(validity, review, audited=bool(audits))
    targets = []
    for name, summary in report_targets.items():
        requirements = [
            RequirementFinding(
                requirement=req, **FaultShare.of(g.faults, g.passes + g.faults).model_dump()
            )
            for req, g in summary.by_requirement.items()
            if req != ROBUSTNESS and g.faults
        ]
        recipes = [
            RecipeFinding(
                recipe_id=rid,
                recipe_name=f.name,
                requirement=f.requirement,
                **FaultShare.of(f.faults, f.passes + f.faults).model_dump(),
            )
            for rid, f in summary.by_family.items()
            if f.faults
        ]
        result = searched.get(name)
        exploits = [
            ExploitFinding(
                family=e.family,
                position=e.position,
                text=e.text,
                inflation=e.inflation.mean,
                ci=e.inflation.ci,
                success_rate=e.success_rate,
            )
            for e in sorted(result.confirmed if result else [], key=lambda e: -e.inflation.mean)
        ]
        found = TargetFindings(
            target=name,
            judged=summary.passes + summary.faults,
            faults=summary.faults,
            errors=summary.errors,
            requirements=sorted(
                requirements, key=lambda r: (-r.faults, -r.fault_rate, r.requirement)
            ),
            recipes=sorted(recipes, key=lambda r: (-r.fault_rate, -r.faults, r.recipe_id)),
            exploits=exploits,
            inflation_error=result.error if result else None,
            comparison=[c.finding for c in audits[name].findings if c.finding]
            if name in audits
            else [],
            headline="",
        )
        targets.append(found.model_copy(update={"headline": _headline(found)}))
    return Findings(panel_evidence=panel_evidence, basis=basis, targets=targets)
