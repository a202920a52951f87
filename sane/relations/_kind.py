"""What a relation kind is, the registry of kinds, and the one entry point that checks one.

A kind says everything the product needs to know about it, in one object: its record (the
typed data a recipe stores), how to check it on a case's normalised scores, its mirror (the
same claim in the opposite direction), which roles' score change it measures, what a paired
significance test expects of it, the direction the blind panel must name, and its formula
and plain words for prompts and reports. Adding a kind is one module that registers it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from sane._record import Record
from sane._registry import Registry
from sane.requirements import Requirement

EPS = 1e-9
"""Slack for float comparisons: a difference exactly equal to the tolerance is within it."""

NOISE_K = 2.0
"""A target's tolerance spans this many standard deviations of its repeat-run noise."""


def tolerance_for(
    noise_std: float, floor: float, spread: float = 0.0, spread_share: float = 0.0
) -> float:
    """The least change a relation check counts as a move: the largest of ``NOISE_K``
    standard deviations of the target's measured repeat-run noise, ``spread_share`` of
    its own spread of scores (the standard deviation of its normalised scores over the
    suite's examples), and the absolute ``floor``.

    Why the spread: a change is material relative to how far the scorer moves between real
    texts, not to its declared range. A metric whose scores span a few hundredths (chrF,
    BERTScore) makes an edit's change of 0.01 as telling as a wide metric's 0.1, and a rank
    correlation with people counts both alike; one absolute bar (the old default, 0.05 of
    the 0-1 range) failed the narrow metrics' every small, consistent move and ranked them
    unlike people (docs/statistics.md). A deterministic target has no noise: its tolerance
    is the larger of the other two."""
    return max(floor, spread_share * spread, NOISE_K * noise_std)


_RANGE_SLACK = 1e-6
"""How far outside [0, 1] a normalised score may stray (rounding) before it is refused."""

Scores = dict[str, list[float]]
Alternative = Literal["less", "greater", "two-sided"]


class Verdict(str, Enum):
    passed = "pass"
    fault = "fault"
    error = "error"


class RelationResult(BaseModel):
    """The verdict of one relation check and the evidence behind it."""

    model_config = ConfigDict(extra="forbid")

    verdict: Verdict
    detail: str


Checker = Callable[[Any, Scores, float, bool], RelationResult]


@dataclass(frozen=True)
class RelationKind:
    """One kind of expected relation, complete (a test walks every kind to prove it).

    - `record`: the pydantic class of its data; `relation.roles()` lists the variant roles
      it reads and `relation.must_differ()` the pairs whose texts must differ for a case to
      test anything (the no-op guard).
    - `check(relation, scores, tolerance, higher_is_better)`: the verdict with evidence.
    - `mirror(relation)`: the opposite claim (the relation itself when it has no direction);
      used for lower-is-better contracts and the panel's mirror controls.
    - `change`: the (from, to) roles whose score difference is a case's change (stability /
      sensitivity, profiles); None for a kind without a perturbation.
    - `paired`: (alternative of perturbed - original, whether significance is expected) for
      the paired t-test of pair kinds; None otherwise.
    - `directions`: what the blind panel may answer for it ("lower", "higher", "same");
      None where a direction cannot express it.
    - `requirements`: the requirements a recipe of this kind can test; `home`, one of them,
      is where a recipe filed under another requirement is refiled (the guards).
    - `changes_score`: it predicts that the variants' scores differ, so variants that are
      the same text once whitespace and case are normalised make a no-op case.
    - `mirror_contradicts`: at most one of it and its mirror can fit a criterion, so the
      mirror is a known-wrong control for the panel (not so for no_increase / no_decrease,
      which both hold for a change that does not matter).
    - `formula`: a format string over the relation's fields, for reports.
    - `predicts(relation, gets)`: the claim in plain words, for the oracle's prompts.
    - `example` and `meaning`: how the recipe agent is told about the kind.
    - `series(relation)`: the roles in their expected order, for the ordering statistics
      (Kendall tau and monotone share over a graded series); None for other kinds.
    - `repeats(relation)`: how many times each variant is scored, where the kind itself says
      (repeatability); None: the execution's `--repeats`.
    """

    name: str
    record: type[Record]
    check: Checker
    mirror: Callable[[Any], Any]
    change: Callable[[Any], tuple[str, str]] | None
    paired: tuple[Alternative, bool] | None
    directions: frozenset[str] | None
    home: Requirement
    requirements: frozenset[Requirement]
    changes_score: bool
    mirror_contradicts: bool
    formula: str
    predicts: Callable[[Any, str], str]
    example: str
    meaning: str
    series: Callable[[Any], list[str]] | None = None
    repeats: Callable[[Any], int] | None = None


KINDS: Registry[RelationKind] = Registry("relation kind", group="sane.relation_kinds")


def register(kind: RelationKind) -> RelationKind:
    return KINDS.register(kind.name)(kind)


def kind_of(relation: Any) -> RelationKind:
    return KINDS[relation.kind]


def reference_role(relation: Any) -> str:
    """The role a case's other texts are compared with (diffs, reports): the start of its
    change where the kind has one, else its first role."""
    kind = kind_of(relation)
    return kind.change(relation)[0] if kind.change is not None else relation.roles()[0]


def verdict(ok: bool, detail: str) -> RelationResult:
    return RelationResult(verdict=Verdict.passed if ok else Verdict.fault, detail=detail)


def error(detail: str) -> RelationResult:
    return RelationResult(verdict=Verdict.error, detail=detail)


def mean(values: list[float]) -> float:
    return math.fsum(values) / len(values)


def unchanged(relation: Any) -> Any:
    """The mirror of a kind without a direction: itself."""
    return relation


def _clean(relation: Any, scores: dict[str, list[float | None]]) -> tuple[Scores, str | None]:
    """The scores of the roles the relation reads, or a reason they cannot be used."""
    clean: Scores = {}
    for role in relation.roles():
        values = scores.get(role)
        if values is None:
            return {}, f"no scores for role '{role}'"
        if len(values) == 0:
            return {}, f"empty score list for role '{role}'"
        for value in values:
            if value is None:
                return {}, f"missing score (None) for role '{role}'"
            if isinstance(value, bool) or not isinstance(value, int | float):
                return {}, f"non-numeric score {value!r} for role '{role}'"
            if not math.isfinite(value):
                return {}, f"non-finite score {value} for role '{role}'"
            if not -_RANGE_SLACK <= value <= 1 + _RANGE_SLACK:
                return {}, f"score {value} for role '{role}' is not normalised to [0, 1]"
        clean[role] = [float(v) for v in values]
    return clean, None


def check_relation(
    relation: Any,
    scores: dict[str, list[float | None]],
    tolerance: float,
    higher_is_better: bool,
) -> RelationResult:
    """Check `relation` on normalised scores (one list of repeats per role). Anything that
    cannot be checked honestly (a missing role, an empty list, a None, NaN or infinite
    score, a bad tolerance) is an error, never a pass."""
    if not (isinstance(tolerance, int | float) and math.isfinite(tolerance) and tolerance >= 0):
        return error(f"invalid tolerance {tolerance!r}")
    kind = KINDS.get(relation.kind)
    if kind is None:
        return error(f"no checker for relation kind '{relation.kind}'")
    clean, problem = _clean(relation, scores)
    if problem is not None:
        return error(problem)
    return kind.check(relation, clean, float(tolerance), higher_is_better)


NEVER_MOVING_LEVELS = tuple(i / 20 for i in range(21))
"""The levels at which `discriminates` scores every variant alike (0, 0.05, ..., 1)."""


def discriminates(
    relation: Any,
    higher_is_better: bool = True,
    level: float | None = None,
    tolerance: float = 0.0,
) -> bool:
    """Whether a scorer that never moves can fail this relation: False where every variant
    scored alike passes it at every level of the output range (invariance, no increase / no
    decrease, a non-strict order such as `ordered`, `combined`, `repeatable`), True where
    equal scores fail it (decrease, increase, `spans`) or pass it only at some levels
    (`at_level`). Decided by the kind's own check on equal scores (two repeats, for
    `repeatable`), so a kind added later needs no entry here (issue 51: only such cases can
    rank a scorer above one that never moves; `RelationKind.changes_score` answers another
    question, the no-op guard's, and `ordered` and `combined` change the score yet pass ties).

    With ``level`` (a target's own median normalised score, `ToleranceEstimate.level`) the
    question is asked of one scorer: the one that never moves from that level, checked under
    the target's ``tolerance``. A level case then discriminates only where the target would
    fail it by staying where it sits: "a fully unfaithful summary scores low" is no evidence
    that a metric reads, where the metric scores every summary low (ROUGE-L against a long
    source did, at 0.03-0.18), and counting it as such gave a scorer that never moves, at a
    low level, more than the 0.5 the default score promises it."""
    roles = relation.roles()
    levels = NEVER_MOVING_LEVELS if level is None else (level,)
    return not all(
        check_relation(
            relation, {role: [at] * 2 for role in roles}, tolerance, higher_is_better
        ).verdict
        is Verdict.passed
        for at in levels
    )


def mirror(relation: Any) -> Any:
    """The relation with its direction flipped (the same relation when it has none)."""
    return kind_of(relation).mirror(relation)


def formula(spec: dict[str, Any]) -> str:
    """A stored relation's formula, e.g. ``s(perturbed) < s(original) - tol``."""
    kind = KINDS.get(str(spec.get("kind")))
    if kind is None:
        return str(spec.get("kind"))
    values = {k: (" < ".join(v) if isinstance(v, list) else v) for k, v in spec.items()}
    try:
        return kind.formula.format(**values)
    except (KeyError, IndexError):
        return str(spec.get("kind"))


def predicts(relation: Any, gets: str = "gets") -> str:
    """What the relation claims for a correct scorer, in plain words."""
    return kind_of(relation).predicts(relation, gets)


def catalogue() -> list[str]:
    """One line per kind for the recipe agent: its JSON form and its meaning."""
    return [f"- {kind.example}: {kind.meaning}" for kind in KINDS.values() if kind.example]
