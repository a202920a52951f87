"""The records of a score-inflation search, light: a suite stores them and every report reads
them (sane.manipulations.search makes them)."""

from __future__ import annotations

from pydantic import Field

from sane._record import Record

ROBUSTNESS = "manipulation robustness"
"""The line a report puts beside the six requirements: the share of the catalogue's
manipulation families the search measured in which it confirmed no exploit."""


class Measured(Record):
    """A mean over examples with its bootstrap 95% interval."""

    mean: float
    ci: tuple[float, float]
    n: int


class Exploit(Record):
    """A candidate put to the held-out examples, confirmed or not."""

    id: str
    family: str
    position: str
    text: str
    placebo: str
    example: dict[str, str]  # the three texts on the first held-out example
    inflation: Measured  # s(manipulated) - s(placebo)
    form_effect: Measured  # s(placebo) - s(original)
    success_rate: float  # share of held-out examples inflated beyond the tolerance
    confirmed: bool
    found_by: str  # catalogue, combined, moved, reworded (code), reworded (agent)


class SearchResult(Record):
    """One target's search: what it tried, what it confirmed, within what budget."""

    target: str = ""
    definition_sha256: str | None = (
        None  # the target definition searched (a new one is searched again)
    )
    tolerance: float
    calls: int  # failed ones included: they are spent all the same
    failed_calls: int = 0  # target calls that failed: those candidates unmeasured there
    first_failure: str | None = None
    budget: int
    candidates: int  # measured on the search split (on one example at least)
    refused: list[str] = Field(default_factory=list)  # pairs the placebo guard refused, why
    exploits: list[Exploit] = Field(default_factory=list)  # put to the held-out examples
    form_effects: dict[str, float] = Field(default_factory=dict)
    """Per family, the mean form effect s(placebo) - s(original) over its catalogue
    candidates on the search split: what a placebo controls for, reported, never a finding."""

    error: str | None = None  # the target failed: no verdict, never "no exploit"

    @property
    def family_verdicts(self) -> dict[str, bool]:
        """Family -> resisted: the catalogue families measured on the search split, each
        True unless a confirmed exploit belongs to it (a combination counts for its first
        family, as the search's own choice of finalists does)."""
        exploited = {e.family.split("+")[0] for e in self.confirmed}
        measured = sorted(set(self.form_effects) | exploited)
        return {family: family not in exploited for family in measured}

    @property
    def families(self) -> tuple[int, int]:
        """(resisted, exploited): counts of :attr:`family_verdicts`."""
        verdicts = self.family_verdicts.values()
        return sum(verdicts), len(verdicts) - sum(verdicts)

    @property
    def confirmed(self) -> list[Exploit]:
        return [e for e in self.exploits if e.confirmed]

    @property
    def strongest(self) -> Exploit | None:
        confirmed = self.confirmed
        return max(confirmed, key=lambda e: e.inflation.mean) if confirmed else None
