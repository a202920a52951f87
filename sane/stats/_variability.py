"""Repeat-run variability and configuration sensitivity (behavioral-correctness paper, §3.6).

- **Repeat-run variability**: the paper repeats the whole evaluation R times and, per
  assumption, takes the standard deviation of the run-level means. Here run r is the r-th
  repeat of every variant's score (``sane execute --repeats R``); per requirement the
  run-level mean is the requirement-level score change Delta_a computed from repeat r only,
  and the variability is the sample standard deviation (ddof = 1) of those R means.
  ``repeatable`` recipes are left out (their repeats are the relation itself, not runs).
- **Configuration sensitivity**: the same judge under several settings (temperature, top-p,
  backbone) declared as separate targets sharing a ``config_group`` in the spec. Per group
  and requirement: the mean and sample standard deviation of Delta_a across the group's
  targets (and the same for the pass rate).
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence

from pydantic import Field

from sane.records import ExecutionRecord, OutputContract, Recipe, RepeatableRelation, Verdict
from sane.stats._base import StatsModel, finite
from sane.stats._profile import change_roles, requirement_profile, role_scores


class RunVariability(StatsModel):
    """Run-level means of one requirement and their sample standard deviation."""

    runs: int
    means: list[float]
    std: float | None = None


def _runs(executions: Sequence[ExecutionRecord], recipes: Mapping[str, Recipe], contract) -> int:
    """The number of complete runs: the fewest repeats any counted variant has."""
    counts = []
    for execution in executions:
        recipe = recipes.get(execution.recipe_id)
        if recipe is None or execution.verdict is Verdict.error:
            continue
        roles = change_roles(recipe.relation)
        if roles is None:
            continue
        counts += [len(role_scores(execution, role, contract)) for role in roles]
    return min(counts) if counts else 0


def repeat_run_variability(
    executions: Iterable[ExecutionRecord],
    recipes: Mapping[str, Recipe],
    contract: OutputContract,
) -> dict[str, RunVariability]:
    """Per requirement, the std of Delta_a over runs; empty with fewer than 2 runs."""
    kept = [
        e
        for e in executions
        if e.recipe_id in recipes
        and not isinstance(recipes[e.recipe_id].relation, RepeatableRelation)
    ]
    runs = _runs(kept, recipes, contract)
    if runs < 2:
        return {}
    profiles = [
        requirement_profile(kept, recipes, contract, repeat=r).by_requirement for r in range(runs)
    ]
    requirements = sorted(set.intersection(*(set(p) for p in profiles)))
    return {
        req: RunVariability(
            runs=runs,
            means=[p[req] for p in profiles],
            std=statistics.stdev(p[req] for p in profiles),
        )
        for req in requirements
    }


class Spread(StatsModel):
    """Mean, sample std, min and max of one quantity across a group's targets."""

    n: int
    mean: float | None = None
    std: float | None = None
    min: float | None = None
    max: float | None = None
    values: dict[str, float] = Field(default_factory=dict)


def spread(values: Mapping[str, float | None]) -> Spread:
    """Undefined parts are None: no value -> all None; one value -> std None."""
    kept = {k: float(v) for k, v in values.items() if finite(v)}  # type: ignore[arg-type]
    numbers = list(kept.values())
    return Spread(
        n=len(numbers),
        mean=statistics.fmean(numbers) if numbers else None,
        std=statistics.stdev(numbers) if len(numbers) > 1 else None,
        min=min(numbers) if numbers else None,
        max=max(numbers) if numbers else None,
        values=kept,
    )


class ConfigSensitivity(StatsModel):
    """How much one judge's profile moves across its configurations (one config group)."""

    targets: list[str]
    settings: dict[str, dict[str, object]] = Field(default_factory=dict)
    pass_rate: Spread
    by_requirement: dict[str, Spread] = Field(default_factory=dict)


def configuration_sensitivity(
    groups: Mapping[str, Sequence[str]],
    profiles: Mapping[str, Mapping[str, float]],
    pass_rates: Mapping[str, float | None],
    settings: Mapping[str, Mapping[str, object]] | None = None,
) -> dict[str, ConfigSensitivity]:
    """Spread of Delta_a and of the pass rate across each group's targets."""
    settings = settings or {}
    result = {}
    for group, members in sorted(groups.items()):
        members = sorted(members)
        requirements = sorted({req for m in members for req in profiles.get(m, {})})
        result[group] = ConfigSensitivity(
            targets=members,
            settings={m: dict(settings.get(m, {})) for m in members},
            pass_rate=spread({m: pass_rates.get(m) for m in members}),
            by_requirement={
                req: spread({m: profiles.get(m, {}).get(req) for m in members})
                for req in requirements
            },
        )
    return result
