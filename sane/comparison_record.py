"""The records of a comparative judge's audit, light: a suite stores them and every report
reads them (sane.pairwise makes them).

A comparative judge (one that says which of two candidates is better) has failures no
single-text test shows: it prefers a position, a longer candidate, a candidate that praises
itself; it calls a text better than itself; its preferences run in circles. The audit
measures each on the suite's examples, with no oracle: every check is a property any
comparative judge must have whatever its criterion, or a bias measured against a placebo of
the same length and form.

A number that could not be measured is None, never NaN (NaN does not survive JSON) and never
a 0 (which would read as "no bias").
"""

from __future__ import annotations

from pydantic import Field

from sane._record import Record

Interval = tuple[float, float]


class ComparisonCheck(Record):
    """One check of the audit on one target: its statistic with a 95% interval, and the
    finding it makes (None: none)."""

    kind: str  # the comparison kind (sane.pairwise.kinds)
    statistic: str  # what `value` is, in words ("share of decisive verdicts that flip")
    value: float | None  # None: not measured (no example, no decisive verdict)
    ci: Interval | None
    n: int  # examples (or verdicts) it rests on
    placebo: float | None = None  # the placebo's own effect, where the check has one
    # a rate the check reads beside its statistic, with its Wilson interval (the swap
    # check's share of decisive verdicts that flip when the order is swapped)
    rate: float | None = None
    rate_ci: Interval | None = None
    finding: str | None = None
    skipped: str | None = None  # why it was not measured (a deterministic target's repeats)


SWAP = "swap_symmetry"  # the check whose rate is the flip rate (swap consistency = 1 - it)


class ComparisonAudit(Record):
    """One target's audit: every check, the calls it took, and an error instead of a verdict
    where the target failed."""

    target: str = ""
    definition_sha256: str | None = None
    examples: int = 0
    calls: int = 0
    failed_calls: int = 0
    first_failure: str | None = None
    checks: list[ComparisonCheck] = Field(default_factory=list)
    error: str | None = None

    @property
    def findings(self) -> list[ComparisonCheck]:
        return [check for check in self.checks if check.finding]

    def check(self, kind: str) -> ComparisonCheck | None:
        return next((c for c in self.checks if c.kind == kind), None)

    @property
    def swap_consistency(self) -> float | None:
        """The share of decisive verdicts that hold when the candidates' order is swapped
        (None: no decisive verdict, or no swap check)."""
        swap = self.check(SWAP)
        return None if swap is None or swap.rate is None else 1.0 - swap.rate

    @property
    def swap_consistency_ci(self) -> Interval | None:
        swap = self.check(SWAP)
        if swap is None or swap.rate_ci is None:
            return None
        return (1.0 - swap.rate_ci[1], 1.0 - swap.rate_ci[0])
