"""Whether a target's pass rate can be read at all: its errors, and whether its scores move.

Why apart from the pass rate: a pass rate counts only the cases a target answered, so a judge
that failed 15 of 18 calls had a "pass rate" over 3 cases and tied for first; and a judge that
gives every text the same score passes every "same score" relation and fails none of the
others by much, so its pass rate says little. Every ranking reads these two facts from here:
a target whose errors exceed `MAX_ERROR_SHARE` of its cases is listed as not ranked (with
why), never ranked; a target whose scores barely move is flagged beside its rank.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from sane._record import Record
from sane.records import ExecutionRecord, OutputContract, Verdict

# More than this share of a target's cases in error and it is not ranked: its pass rate
# would rest on the few cases it happened to answer.
MAX_ERROR_SHARE = 0.25
# A target whose scores on the cases' originals (different texts) span less than this on the
# 0-1 scale, or whose scores over every variant do, "barely moves".
FLAT_SPREAD = 0.1
ORIGINAL = "original"


class TargetHealth(Record):
    """One target's errors and score movement over the suite's counted cases."""

    cases_run: int = 0
    errors: int = 0
    first_error: str | None = None
    # the range (max - min) of its normalised scores on the originals, and on every variant
    original_spread: float | None = None
    originals: int = 0
    score_spread: float | None = None
    sensitivity: float | None = None  # TargetSummary.sensitivity, repeated beside the spread

    @property
    def error_share(self) -> float:
        return self.errors / self.cases_run if self.cases_run else 0.0

    @property
    def not_ranked(self) -> str | None:
        """Why the target is not ranked ("15 of 18 case executions failed (...)"), or None."""
        if not self.errors or self.error_share <= MAX_ERROR_SHARE:
            return None
        why = f" ({self.first_error})" if self.first_error else ""
        return f"not ranked: {self.errors} of {self.cases_run} case executions failed{why}"

    @property
    def flat(self) -> bool:
        spreads = [s for s in (self.original_spread, self.score_spread) if s is not None]
        return bool(spreads) and min(spreads) < FLAT_SPREAD and self.originals >= 2

    @property
    def flat_note(self) -> str | None:
        """ "scores barely move: ..." with the spreads and the sensitivity, or None."""
        if not self.flat:
            return None
        sensitivity = "n/a" if self.sensitivity is None else f"{self.sensitivity:.2f}"
        original = "n/a" if self.original_spread is None else f"{self.original_spread:.2f}"
        overall = "n/a" if self.score_spread is None else f"{self.score_spread:.2f}"
        return (
            f"scores barely move: spread {original} over {self.originals} examples' originals, "
            f"{overall} over every variant (0-1 scale), sensitivity {sensitivity}"
        )

    @property
    def note(self) -> str | None:
        """Everything a ranking shows beside this target, in one cell."""
        notes = [n for n in (self.not_ranked, self.flat_note) if n]
        return "; ".join(notes) or None


def _spread(values: list[float]) -> float | None:
    return max(values) - min(values) if values else None


def target_health(
    runs: Iterable[ExecutionRecord],
    example_of: Mapping[str, int],
    contract: OutputContract,
    sensitivity: float | None = None,
) -> TargetHealth:
    """A target's health from its counted executions (errors included); `example_of` maps a
    case id to its example, so that an original scored in several cases counts once; raw
    scores are put on the 0-1 scale by `contract` where a record holds no normalised ones."""
    runs = list(runs)
    errors = [r for r in runs if r.verdict is Verdict.error]
    answered = [r for r in runs if r.verdict is not Verdict.error]
    originals: dict[int, float] = {}
    every: list[float] = []
    for record in answered:
        normalised = record.normalised or {
            role: [None if v is None else contract.normalise(v) for v in values]
            for role, values in record.scores.items()
        }
        for role, values in normalised.items():
            scored = [v for v in values if v is not None]
            every += scored
            if role == ORIGINAL and scored:
                originals[example_of.get(record.case_id, -1)] = sum(scored) / len(scored)
    first = next((r.error or r.detail for r in errors if r.error or r.detail), None)
    return TargetHealth(
        cases_run=len(runs),
        errors=len(errors),
        first_error=" ".join(first.split())[:160] if first else None,
        original_spread=_spread(list(originals.values())),
        originals=len(originals),
        score_spread=_spread(every),
        sensitivity=sensitivity,
    )
