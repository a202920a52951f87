"""The operator grid: every code edit crossed with every pair direction, no model needed.

Why: a panel is measured by what it keeps and what it rejects. A derived suite mostly proposes
recipes that look right, so it shows little of what a panel lets through; this generator
proposes each code edit of the catalogue (sane.edits, `OPERATORS`) under
each of the five pair relations (decrease, increase, invariant, no_increase, no_decrease).
For a given criterion most of the 45 are wrong, and each one's truth is exact (its cases are
written by code), which is what the validity sweep (`benchmarks/bench_validity.py
--oracle-sweep`) and `sane qualify` need. One capability per edit; no LLM call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sane.edits import OPERATORS
from sane.errors import InputError
from sane.generators.base import OPTION, register_generator
from sane.records import Capability, Example, PairRelation, Recipe, RunConfig, ScorerSpec
from sane.relations import KINDS
from sane.requirements import Requirement

if TYPE_CHECKING:  # the client (litellm) loads when a run starts, not on import
    from sane.llm import LLMClient

NAME = "operators"


def pair_kinds() -> list[str]:
    """The pair relations, in the registry's order."""
    return [name for name, kind in KINDS.items() if kind.record is PairRelation]


def _capability_id(operator: str) -> str:
    return f"cap-{operator.replace('_', '-')}"


def grid_capabilities() -> list[Capability]:
    """One capability per code edit, in name order."""
    return [
        Capability(
            id=_capability_id(operator),
            name=operator.replace("_", " "),
            description=f"How the score responds to a code edit: {instruction}",
            requirement=Requirement.monotonicity,
        )
        for operator, instruction in sorted(OPERATORS.items())
    ]


def grid_recipes(capability_id: str, generator: str = NAME) -> list[Recipe]:
    """The edit's recipes: one per pair relation, built on the edit (cases written by code)."""
    (operator,) = [o for o in OPERATORS if _capability_id(o) == capability_id]
    return [
        Recipe(
            # the id is opaque about the relation: prompts show it (a case's id is built on
            # it), and "rec-blank-lines-decrease" would answer the question it asks
            id=f"rec-{operator.replace('_', '-')}-{number}",
            capability_id=capability_id,
            requirement=KINDS[kind].home,
            name=f"{operator.replace('_', ' ')}: {kind.replace('_', ' ')}",
            instruction=OPERATORS[operator],
            variant_roles=["original", "perturbed"],
            relation=PairRelation(kind=kind),  # type: ignore[arg-type]
            rationale="the operator grid: every code edit under every pair direction",
            generator=generator,
            transform=operator,
        )
        for number, kind in enumerate(pair_kinds(), start=1)
    ]


class OperatorGrid:
    """The grid as a generator (the same for every scorer; no model call)."""

    name = NAME

    async def capabilities(
        self, llm: LLMClient, spec: ScorerSpec, examples: list[Example], config: RunConfig
    ) -> list[Capability]:
        return grid_capabilities()

    async def recipes(
        self, llm: LLMClient, spec: ScorerSpec, capability: Capability, config: RunConfig
    ) -> tuple[list[Recipe], list[str]]:
        return grid_recipes(capability.id, config.generator), []


@register_generator(NAME)
def _operators(argument: str | None) -> OperatorGrid:
    if argument is not None:
        raise InputError(None, OPTION, f"the {NAME} generator takes no ':NAME'")
    return OperatorGrid()
