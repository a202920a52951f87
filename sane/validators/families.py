"""Family validation: a recipe's cases, counted through the three validity questions."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from sane.records import Case, Decision, Family, PanelDecision, Recipe, RunConfig
from sane.validators.ballots import needs_mirror_rejected
from sane.validators.controls import contrastive_aligned
from sane.validators.guards import recipe_rejections


def is_yes(decisions: dict[str, PanelDecision], subject_id: str) -> bool:
    decision = decisions.get(subject_id)
    return decision is not None and decision.decision is Decision.yes


def aligned_recipe_ids(
    recipes: Iterable[Recipe], alignment: Mapping[str, PanelDecision], config: RunConfig
) -> set[str]:
    """The recipes a suite tests: accepted by the panel (and, for a contrastive or blind
    panel, with their mirror not accepted) and rejected by no validity guard. The one place this rule lives."""
    recipes = list(recipes)
    rejected = recipe_rejections(recipes)
    if needs_mirror_rejected(config):
        accepted = {r.id for r in recipes if contrastive_aligned(r.id, alignment)}
    else:
        accepted = {r.id for r in recipes if is_yes(dict(alignment), r.id)}
    return accepted - set(rejected)


def count_family(
    recipe_id: str,
    cases: list[Case],
    realization: dict[str, PanelDecision],
    applicability: dict[str, PanelDecision],
    tau: int,
    excluded: set[str] = frozenset(),  # type: ignore[assignment]
) -> Family:
    """Counts nest: applicable means realized and applicable; joint-valid adds alignment,
    which holds for every family that has cases. Cases a validity guard rejects
    (`excluded`) count as cases and never as realized, whatever the panel said."""
    realized = [c for c in cases if c.id not in excluded and is_yes(realization, c.id)]
    applicable = [c for c in realized if is_yes(applicability, c.id)]
    return Family(
        recipe_id=recipe_id,
        cases=len(cases),
        realized=len(realized),
        applicable=len(applicable),
        joint_valid=len(applicable),
        tau=tau,
        validated=len(applicable) >= tau,
    )


def joint_valid_cases(
    cases: list[Case],
    realization: dict[str, PanelDecision],
    applicability: dict[str, PanelDecision],
    excluded: set[str] = frozenset(),  # type: ignore[assignment]
) -> list[Case]:
    return [
        c
        for c in cases
        if c.id not in excluded and is_yes(realization, c.id) and is_yes(applicability, c.id)
    ]
