"""Family validation: a recipe's cases, counted through the three validity questions."""

from __future__ import annotations

from sane.records import Case, Decision, Family, PanelDecision


def is_yes(decisions: dict[str, PanelDecision], subject_id: str) -> bool:
    decision = decisions.get(subject_id)
    return decision is not None and decision.decision is Decision.yes


def count_family(
    recipe_id: str,
    cases: list[Case],
    realization: dict[str, PanelDecision],
    applicability: dict[str, PanelDecision],
    tau: int,
) -> Family:
    """Counts nest: applicable means realized and applicable; joint-valid adds alignment,
    which holds for every family that has cases."""
    realized = [c for c in cases if is_yes(realization, c.id)]
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
) -> list[Case]:
    return [c for c in cases if is_yes(realization, c.id) and is_yes(applicability, c.id)]
