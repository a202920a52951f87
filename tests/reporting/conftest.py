"""A small factory for hand-built SuiteSnapshots, so each test states its suite in a few lines.

Case ids are ``"{recipe_id}/{index}"``; a decision given as ``None`` is left out of the
snapshot (a missing panel decision).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

import pytest

from sane.records import (
    CallRecord,
    Capability,
    Case,
    Decision,
    ExecutionRecord,
    Family,
    OutputContract,
    PanelDecision,
    Question,
    Recipe,
    RunConfig,
    ScorerSpec,
    SuiteSnapshot,
)
from sane.target_kind import target_config

Y, N, U = "yes", "no", "unresolved"


@dataclass
class Plan:
    """One recipe: its alignment and per case (realization, applicability) decisions."""

    recipe_id: str
    aligned: str | None = Y
    cases: list[tuple[str | None, str | None]] = field(default_factory=list)
    requirement: str = "monotonicity"
    relation: dict = field(default_factory=lambda: {"kind": "decrease"})
    capability: str = "cap-1"


def _decision(subject: str, question: Question, value: str) -> PanelDecision:
    return PanelDecision(subject_id=subject, question=question, decision=Decision(value), votes=[])


def _roles(relation: dict) -> list[str]:
    if relation["kind"] in {"decrease", "increase", "no_increase", "no_decrease", "invariant"}:
        return ["original", "perturbed"]
    if relation["kind"] == "combined":
        return ["original", "edit_a", "edit_b", "edit_ab"]
    return ["original"]


def make_snapshot(
    plans: list[Plan],
    executions: list[ExecutionRecord] = (),
    *,
    cases_per_recipe: int = 4,
    tau: int | None = None,
    errors: list[dict[str, str]] = (),
    calls: list[CallRecord] = (),
    tolerances: dict[str, float] | None = None,
    targets: list[str] = (),
    families: list[Family] | None = None,
    higher_is_better: bool = True,
) -> SuiteSnapshot:
    config = RunConfig(
        model="test/gen", oracle_models=["test/oracle"], cases=cases_per_recipe, tau=tau
    )
    capabilities = {
        p.capability: Capability(
            id=p.capability,
            name=f"name of {p.capability}",
            description="d",
            requirement=p.requirement,
        )
        for p in plans
    }
    recipes, cases = [], []
    alignment, realization, applicability = {}, {}, {}
    stored = []
    for plan in plans:
        recipes.append(
            Recipe(
                id=plan.recipe_id,
                capability_id=plan.capability,
                requirement=plan.requirement,
                name=f"recipe {plan.recipe_id}",
                instruction=f"apply edit number {plan.recipe_id} to the text",
                variant_roles=_roles(plan.relation),
                relation=plan.relation,
                rationale="because",
            )
        )
        if plan.aligned is not None:
            alignment[plan.recipe_id] = _decision(plan.recipe_id, Question.alignment, plan.aligned)
        counts = {"realized": 0, "applicable": 0, "joint_valid": 0}
        for index, (real, appl) in enumerate(plan.cases):
            case_id = f"{plan.recipe_id}/{index}"
            cases.append(
                Case(
                    id=case_id,
                    recipe_id=plan.recipe_id,
                    index=index,
                    example_index=index,
                    example={"summary": "s"},
                    variants={role: f"{role} text of {case_id}" for role in _roles(plan.relation)},
                )
            )
            if real is not None:
                realization[case_id] = _decision(case_id, Question.realization, real)
            if appl is not None:
                applicability[case_id] = _decision(case_id, Question.applicability, appl)
            if real == Y:
                counts["realized"] += 1
                if appl == Y:
                    counts["applicable"] += 1
                    counts["joint_valid"] += plan.aligned == Y
        stored.append(
            Family(
                recipe_id=plan.recipe_id,
                cases=len(plan.cases),
                tau=config.threshold,
                validated=counts["joint_valid"] >= config.threshold,
                **counts,
            )
        )
    spec = ScorerSpec(
        name="faithfulness",
        criterion="How faithful | the summary is.",
        fields={"source": "doc", "summary": "text"},
        scored_field="summary",
        output=OutputContract(min=0, max=1, higher_is_better=higher_is_better),
        targets=[target_config(name=name, kind="python") for name in targets],
    )
    return SuiteSnapshot(
        spec=spec,
        config=config,
        created="2025-01-01T00:00:00Z",
        examples=[],
        capabilities=list(capabilities.values()),
        recipes=recipes,
        alignment=alignment,
        cases=cases,
        realization=realization,
        applicability=applicability,
        families=stored if families is None else families,
        tolerances=tolerances or {},
        executions=list(executions),
        calls=list(calls),
        errors=list(errors),
    )


def run(
    target: str,
    case_id: str,
    verdict: str,
    *,
    scores: dict[str, list[float | None]] | None = None,
    tolerance: float = 0.05,
    error: str | None = None,
) -> ExecutionRecord:
    return ExecutionRecord(
        target=target,
        case_id=case_id,
        recipe_id=case_id.split("/")[0],
        scores=scores or {"original": [0.9], "perturbed": [0.5]},
        tolerance=tolerance,
        verdict=verdict,
        detail=f"{verdict} on {case_id}",
        error=error,
    )


@pytest.fixture
def kit() -> SimpleNamespace:
    """``kit.snapshot(...)``, ``kit.Plan(...)``, ``kit.run(...)`` and the decision constants."""
    return SimpleNamespace(snapshot=make_snapshot, Plan=Plan, run=run, Y=Y, N=N, U=U)
