"""Threshold sensitivity: validated and fault-detecting family counts per tau (SANE appendix C)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from sane.records import is_validated
from sane.stats._base import StatsModel


class ThresholdRow(StatsModel):
    """Family counts had the validation threshold been ``tau`` (SANE appendix C).

    ``fault_detecting`` counts, per target, families validated at ``tau`` whose executed
    cases include a fault; ``fault_detecting_any`` counts families fault-detecting for at
    least one target. ``unexecuted`` families are validated at ``tau`` but have no
    execution flags (they were below the suite's own threshold and never run), so the
    fault-detecting counts at that ``tau`` are lower bounds when it is non-zero.
    """

    tau: int
    validated: int
    fault_detecting: dict[str, int]
    fault_detecting_any: int
    unexecuted: int


def threshold_sensitivity(
    joint_valid: Mapping[str, int],
    fault_detecting: Mapping[str, Mapping[str, bool]],
    *,
    taus: Iterable[int] = range(5, 11),
) -> list[ThresholdRow]:
    """Validated and fault-detecting family counts for each ``tau``.

    ``joint_valid`` maps family (recipe) id -> joint-valid case count; ``fault_detecting``
    maps target -> family id -> whether that target faulted on one of the family's cases.
    A family absent from every target's map counts as unexecuted.
    """
    targets = sorted(fault_detecting)
    executed = {family for flags in fault_detecting.values() for family in flags}
    rows = []
    for tau in taus:
        validated = [family for family, count in joint_valid.items() if is_validated(count, tau)]
        per_target = {
            target: sum(bool(fault_detecting[target].get(family)) for family in validated)
            for target in targets
        }
        any_target = sum(
            any(fault_detecting[target].get(family) for target in targets) for family in validated
        )
        rows.append(
            ThresholdRow(
                tau=tau,
                validated=len(validated),
                fault_detecting=per_target,
                fault_detecting_any=any_target,
                unexecuted=sum(family not in executed for family in validated),
            )
        )
    return rows


def default_taus(cases_per_recipe: int) -> range:
    """floor(n/2) .. n: from a bare half to all cases (5..10 for the default n = 10)."""
    return range(max(1, cases_per_recipe // 2), max(1, cases_per_recipe) + 1)
