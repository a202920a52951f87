"""What a comparison kind is and the registry of kinds (sane.pairwise.kinds registers the
built-in ones; another package adds one through the `sane.comparison_kinds` entry-point
group)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sane._registry import Registry
from sane.comparison_record import ComparisonCheck

Pair = tuple[str, str, int]  # candidate A, candidate B, repeat index
Preferences = dict[str, float]  # role -> the preference for the first candidate, in [-1, 1]


@dataclass(frozen=True)
class AuditSettings:
    """The bars of the audit's findings."""

    decisive: float = 0.1  # |preference| above this is a verdict, not a tie
    min_effect: float = 0.1  # the least mean shift (on [-1, 1]) a bias finding needs
    max_rate: float = 0.1  # a rate's Wilson lower bound must exceed this to be a finding
    # the confidence of a bias effect's interval (Student's t): the three bias checks
    # (position, verbosity, self-praise) share a 5% family-wise error (Bonferroni). A 95%
    # bootstrap over 12 examples called a judge with noise and no bias biased in 9-15% of
    # runs; this, in 0.3-2.2%, and every planted bias was still found (bench_pairwise.py)
    bias_confidence: float = 1 - 0.05 / 3
    seed: int = 0


def decisive(p: float, settings: AuditSettings) -> int:
    """+1 A, -1 B, 0 a tie."""
    return 0 if abs(p) <= settings.decisive else (1 if p > 0 else -1)


@dataclass(frozen=True)
class ComparisonKind:
    """One comparison kind, complete (tests/pairwise walks every kind).

    - `layouts(a, b)`: role -> (candidate A, candidate B, repeat) it asks about;
    - `measure(preferences, settings, deterministic)`: its check over the examples'
      preferences (each a role -> preference dict, only examples whose every call answered);
    - `title` and `meaning`: how reports and docs name it.
    """

    name: str
    title: str
    meaning: str
    layouts: Callable[[str, str], dict[str, Pair]]
    measure: Callable[[list[Preferences], AuditSettings, bool], ComparisonCheck]


COMPARISON_KINDS: Registry[ComparisonKind] = Registry(
    "comparison kind", group="sane.comparison_kinds"
)


def register_comparison(kind: ComparisonKind) -> ComparisonKind:
    return COMPARISON_KINDS.register(kind.name)(kind)
