"""Family validation: a recipe's cases, counted through the three validity questions."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from sane.panel.controls import contrastive_aligned
from sane.panel.kinds import panel_kind
from sane.records import (
    Case,
    Decision,
    Family,
    PanelDecision,
    Question,
    Recipe,
    RunConfig,
    is_validated,
)
from sane.validators.guards import guarded_cases, recipe_rejections

if TYPE_CHECKING:
    from sane.suites.store import SuiteStore


def panel_decisions(decisions: Mapping[str, PanelDecision]) -> dict[str, PanelDecision]:
    """The panel's own decisions, as if no reviewer's decision had been applied (items only
    a reviewer decided are left out)."""
    own = {}
    for subject, d in decisions.items():
        if not d.by_human:
            own[subject] = d
        elif d.panel_decision is not None:
            reverted = {"decision": d.panel_decision, "by_human": False, "panel_decision": None}
            own[subject] = d.model_copy(update=reverted)
    return own


def is_yes(decisions: Mapping[str, PanelDecision], subject_id: str) -> bool:
    """A missing or unresolved decision is not a yes."""
    decision = decisions.get(subject_id)
    return decision is not None and decision.decision is Decision.yes


def aligned_recipe_ids(
    recipes: Iterable[Recipe], alignment: Mapping[str, PanelDecision], config: RunConfig
) -> set[str]:
    """The recipes a suite tests: accepted by the panel (and, for a contrastive or blind
    panel, with their mirror not accepted) and rejected by no validity guard. A reviewer's
    decision (`sane review apply`) is final: the mirror does not overrule it, a guard does.
    The one place this rule lives."""
    recipes = list(recipes)
    rejected = recipe_rejections(recipes)
    mirror_rejected = panel_kind(config.panel).rejects_mirror

    def accepted(recipe_id: str) -> bool:
        decision = alignment.get(recipe_id)
        if decision is not None and decision.by_human:
            return decision.decision is Decision.yes
        if mirror_rejected:
            return contrastive_aligned(recipe_id, alignment)
        return is_yes(dict(alignment), recipe_id)

    return {r.id for r in recipes if accepted(r.id)} - set(rejected)


def count_family(
    recipe_id: str,
    cases: list[Case],
    realization: dict[str, PanelDecision],
    applicability: dict[str, PanelDecision],
    tau: int,
    excluded: set[str] = frozenset(),  # type: ignore[assignment]
    *,
    aligned: bool = True,
) -> Family:
    """Counts nest: applicable means realized and applicable; joint-valid adds alignment
    (a family the pipeline counts is aligned; the report recounts every recipe)."""
    realized, applicable = realized_and_applicable(cases, realization, applicability, excluded)
    joint = len(applicable) if aligned else 0
    return Family(
        recipe_id=recipe_id,
        cases=len(cases),
        realized=len(realized),
        applicable=len(applicable),
        joint_valid=joint,
        tau=tau,
        validated=is_validated(joint, tau),
    )


def realized_and_applicable(
    cases: list[Case],
    realization: Mapping[str, PanelDecision],
    applicability: Mapping[str, PanelDecision],
    excluded: Iterable[str] = (),
) -> tuple[list[Case], list[Case]]:
    """The cases judged realized, and of those the ones judged applicable. A case a
    validity guard rejects (`excluded`) is never realized, whatever the panel said. The
    one place the case rule lives."""
    excluded = set(excluded)
    realized = [c for c in cases if c.id not in excluded and is_yes(realization, c.id)]
    return realized, [c for c in realized if is_yes(applicability, c.id)]


def joint_valid_cases(
    cases: list[Case],
    realization: dict[str, PanelDecision],
    applicability: dict[str, PanelDecision],
    excluded: set[str] = frozenset(),  # type: ignore[assignment]
) -> list[Case]:
    """The realized and applicable cases of an aligned recipe."""
    return realized_and_applicable(cases, realization, applicability, excluded)[1]


def count_families(
    recipes: Iterable[Recipe],
    cases: Mapping[str, list[Case]],
    realization: dict[str, PanelDecision],
    applicability: dict[str, PanelDecision],
    config: RunConfig,
    aligned: set[str] | None = None,
) -> list[Family]:
    """The family of every recipe given, counted from the decisions in force (`aligned`:
    the recipes that are aligned; None: all given are); a family with fewer cases than
    planned was stopped early by sequential generation, and says why."""
    families = []
    for recipe in recipes:
        stored = cases.get(recipe.id, [])
        family = count_family(
            recipe.id,
            stored,
            realization,
            applicability,
            config.threshold,
            excluded=set(guarded_cases([recipe], stored)),
            aligned=aligned is None or recipe.id in aligned,
        )
        skipped = max(config.cases - family.cases, 0)
        if skipped:
            stopped = "reached_tau" if family.validated else "could_not_reach_tau"
            family = family.model_copy(update={"skipped": skipped, "stopped": stopped})
        families.append(family)
    return families


def family_counts(store: SuiteStore, config: RunConfig) -> list[Family]:
    """The families of a suite's aligned recipes, from the decisions in force: the family
    stage stores these, and `sane review apply` stores them again after reviewers' decisions
    replace the panel's."""
    recipes = store.recipes()
    aligned = aligned_recipe_ids(recipes, store.decisions(Question.alignment), config)
    chosen = [recipe for recipe in recipes if recipe.id in aligned]
    return count_families(
        chosen,
        {recipe.id: store.cases(recipe.id) for recipe in chosen},
        store.decisions(Question.realization),
        store.decisions(Question.applicability),
        config,
    )


def executable_cases(
    recipes: Iterable[Recipe],
    cases: Iterable[Case],
    families: Iterable[Family],
    realization: dict[str, PanelDecision],
    applicability: dict[str, PanelDecision],
) -> list[tuple[Recipe, Case]]:
    """The cases `sane execute` scores, in its order: for each stored family marked
    validated, its joint-valid cases less those a validity guard rejects. Execution, export,
    the Inspect task and `sane review apply` all take their cases from here."""
    known = {recipe.id: recipe for recipe in recipes}
    by_recipe: dict[str, list[Case]] = {}
    for case in cases:
        by_recipe.setdefault(case.recipe_id, []).append(case)
    pairs: list[tuple[Recipe, Case]] = []
    for family in families:
        recipe = known.get(family.recipe_id)
        if not family.validated or recipe is None:
            continue
        stored = by_recipe.get(recipe.id, [])
        excluded = set(guarded_cases([recipe], stored))
        valid = joint_valid_cases(stored, realization, applicability, excluded=excluded)
        pairs.extend((recipe, case) for case in valid)
    return pairs
