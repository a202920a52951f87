"""Faults grouped into cards: one per recipe per target, its worst cases first.

Why: a recipe that a judge fails fails it on many near-identical cases, and a list of one
card per case buries the finding ("judge-v1 fails upper-cased answers, 10 of 10") under
its repetitions. A card per (target, recipe) states the finding once and keeps the cases
inside it, ordered by how far apart the judge put texts the relation ties together
(:attr:`FaultEvidence.gap`), so the first case shown is the most telling one.

The markdown report groups here; the HTML page groups the same way in its script, after
its filters (``templates/_report.js.j2``, ``groupFaults``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sane.reporting._models import FaultEvidence


@dataclass(frozen=True)
class FaultGroup:
    """The faults of one target on one recipe, worst first."""

    faults: tuple[FaultEvidence, ...]

    @property
    def worst(self) -> FaultEvidence:
        return self.faults[0]

    @property
    def target(self) -> str:
        return self.worst.target

    @property
    def cases(self) -> int:
        return len({f.case_id for f in self.faults})


def _worst_first(fault: FaultEvidence) -> tuple[bool, float]:
    return (fault.gap is None, -(fault.gap or 0.0))


def group_faults(faults: Iterable[FaultEvidence]) -> list[FaultGroup]:
    """Cards in target order (as the faults come), within a target the recipe with most
    faults first (then the larger worst gap); within a card the worst cases first."""
    by_key: dict[tuple[str, str], list[FaultEvidence]] = {}
    for fault in faults:
        by_key.setdefault((fault.target, fault.recipe_id), []).append(fault)
    targets = list(dict.fromkeys(target for target, _ in by_key))
    groups = [FaultGroup(tuple(sorted(group, key=_worst_first))) for group in by_key.values()]
    return sorted(
        groups,
        key=lambda g: (targets.index(g.target), -len(g.faults), *_worst_first(g.worst)),
    )
