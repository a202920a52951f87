"""Derived versus fixed generation on one scorer: the figures side by side.

Every figure is read from (or, for the rates, computed from) the report that
:func:`sane.reporting.build_report` builds for each suite, so the comparison can
never disagree with the suites' own reports. The rates follow the SANE paper's
validity decomposition (appendix B): per candidate recipe, the joint-valid rate
is ``joint_valid_cases / (candidate_recipes * cases_per_recipe)``, and it factors
into recipe alignment (aligned / candidate), case realization (realized /
generated cases) and relation applicability (applicable / realized); the product
equals the joint-valid rate whenever every aligned recipe got its cases.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from jinja2 import Environment
from pydantic import Field

from sane._record import Record
from sane.errors import InputError
from sane.records import SuiteSnapshot, is_validated
from sane.reporting import Report, build_report
from sane.reporting.formatting import markdown_environment
from sane.stats import ThresholdRow
from sane.suites.store import SuiteStore
from sane.validators.families import aligned_recipe_ids


class Rates(Record):
    """Per-candidate validity rates; ``None`` where the denominator is zero."""

    joint_valid: float | None
    alignment: float | None
    realization: float | None
    applicability: float | None
    validated: float | None


class GeneratorColumn(Record):
    """One generator's suite, summarised for the comparison."""

    generator: str
    suite: str
    candidate_recipes: int
    aligned_recipes: int
    unique_aligned_recipes: int
    validated_families: int
    cases_per_recipe: int
    tau: int
    cases: int
    realized_cases: int
    applicable_cases: int
    joint_valid_cases: int
    rates: Rates
    executed: bool
    fault_detecting_families: int
    fault_detecting_by_target: dict[str, int] = Field(default_factory=dict)
    pass_rate_by_target: dict[str, float | None] = Field(default_factory=dict)
    validated_by_requirement: dict[str, int] = Field(default_factory=dict)
    threshold_sensitivity: list[ThresholdRow] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


class Comparison(Record):
    """Columns in order, the first one the reference (normally ``derived``)."""

    scorer: str
    examples: int
    columns: list[GeneratorColumn]
    validated_ratio: dict[str, float | None] = Field(
        default_factory=dict,
        description="first column's validated families / each other column's (None if 0)",
    )
    differences: list[str] = Field(
        default_factory=list,
        description="generation settings that differ between the suites (a fair comparison "
        "has none besides the generator)",
    )


_SETTINGS = ("model", "oracle_models", "votes", "cases", "threshold", "seed", "temperature")


def _differences(snapshots: list[SuiteSnapshot]) -> list[str]:
    found = []
    for setting in _SETTINGS:
        values = [getattr(s.config, setting) for s in snapshots]
        if any(v != values[0] for v in values[1:]):
            found.append(f"{setting}: " + ", ".join(str(v) for v in values))
    return found


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def _recipe_signature(text: str, relation_kind: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.casefold())) + f" -> {relation_kind}"


def unique_aligned(snapshot: SuiteSnapshot) -> int:
    """Distinct aligned recipes: same instruction (case, spacing, punctuation aside) and the
    same relation kind count once (a derived suite can propose one recipe twice)."""
    aligned = aligned_recipe_ids(snapshot.recipes, snapshot.alignment, snapshot.config)
    return len(
        {
            _recipe_signature(recipe.instruction, recipe.relation.kind)
            for recipe in snapshot.recipes
            if recipe.id in aligned
        }
    )


def _validated_by_requirement(snapshot: SuiteSnapshot, report: Report) -> dict[str, int]:
    """Validated families per requirement, recounted with the report's threshold."""
    requirement = {recipe.id: recipe.requirement.value for recipe in snapshot.recipes}
    counts: dict[str, int] = {}
    for family in snapshot.families:
        if (
            is_validated(family.joint_valid, report.validity.tau)
            and family.recipe_id in requirement
        ):
            key = requirement[family.recipe_id]
            counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items()))


def column(
    snapshot: SuiteSnapshot, suite: str | Path, report: Report | None = None
) -> GeneratorColumn:
    """Summarise one suite from its report (built here unless given)."""
    report = report or build_report(snapshot)
    v = report.validity
    n = report.suite.cases_per_recipe
    executed = bool(report.targets)
    return GeneratorColumn(
        generator=report.suite.generator,
        suite=str(suite),
        candidate_recipes=v.candidate_recipes,
        aligned_recipes=v.aligned_recipes,
        unique_aligned_recipes=unique_aligned(snapshot),
        validated_families=v.validated_families,
        cases_per_recipe=n,
        tau=v.tau,
        cases=v.cases,
        realized_cases=v.realized_cases,
        applicable_cases=v.applicable_cases,
        joint_valid_cases=v.joint_valid_cases,
        rates=Rates(
            joint_valid=_ratio(v.joint_valid_cases, v.candidate_recipes * n),
            alignment=_ratio(v.aligned_recipes, v.candidate_recipes),
            realization=_ratio(v.realized_cases, v.cases),
            applicability=_ratio(v.applicable_cases, v.realized_cases),
            validated=_ratio(v.validated_families, v.candidate_recipes),
        ),
        executed=executed,
        fault_detecting_families=v.fault_detecting_families,
        fault_detecting_by_target={
            name: t.fault_detecting_families for name, t in report.targets.items()
        },
        pass_rate_by_target={name: t.pass_rate for name, t in report.targets.items()},
        validated_by_requirement=_validated_by_requirement(snapshot, report),
        threshold_sensitivity=report.threshold_sensitivity,
        warnings=report.warnings,
    )


def compare_generator_snapshots(items: list[tuple[SuiteSnapshot, str | Path]]) -> Comparison:
    """Compare suites generated for the same scorer and examples (first = reference)."""
    if not items:
        raise InputError(None, None, "nothing to compare")
    first = items[0][0]
    for snapshot, path in items[1:]:
        if snapshot.spec != first.spec or snapshot.examples != first.examples:
            raise InputError(
                str(path), None, f"suite is for a different spec or example set than {items[0][1]}"
            )
    columns = [column(snapshot, path) for snapshot, path in items]
    reference = columns[0]
    return Comparison(
        scorer=first.spec.name,
        examples=len(first.examples),
        columns=columns,
        validated_ratio={
            c.generator: _ratio(reference.validated_families, c.validated_families)
            for c in columns[1:]
        },
        differences=_differences([snapshot for snapshot, _ in items]),
    )


def compare_generators(paths: list[str | Path]) -> Comparison:
    """Open each suite file and compare them (first = reference)."""
    items = []
    for path in paths:
        store = SuiteStore(path, readonly=True)
        try:
            items.append((store.snapshot(), path))
        finally:
            store.close()
    return compare_generator_snapshots(items)


# ------------------------------------------------------------------ markdown


def _times(value: float | None) -> str:
    return "n/a (no validated family to divide by)" if value is None else f"{value:.2f} times"


@cache
def _environment() -> Environment:
    return markdown_environment("sane.analyses", times=_times)


def render_comparison(comparison: Comparison) -> str:
    """The comparison as a markdown table (layout in templates/comparison.md.j2)."""
    targets = sorted({t for col in comparison.columns for t in col.fault_detecting_by_target})
    requirements = sorted({r for col in comparison.columns for r in col.validated_by_requirement})
    return (
        _environment()
        .get_template("comparison.md.j2")
        .render(
            c=comparison,
            first=comparison.columns[0],
            targets=targets,
            requirements=requirements,
        )
    )
