"""Recipe agent: perturbations and their expected score relation, per capability."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from sane.agents._drafts import AgentCall, RecipeDraft, recipe_list
from sane.edits import OPERATORS
from sane.prompts import messages
from sane.records import Capability, PairRelation, Recipe, RunConfig, ScorerSpec

if TYPE_CHECKING:  # the client (litellm) loads when a run starts, not on import
    from sane.llm import LLMClient


def recipes_call(spec: ScorerSpec, capability: Capability, config: RunConfig) -> AgentCall:
    """The call that drafts one capability's recipes."""
    prompt = messages(
        "recipes.j2",
        spec=spec,
        capability=capability,
        limit=config.recipes_per_capability,
        operators=OPERATORS,
    )
    return AgentCall("recipes", prompt, recipe_list(config.recipes_per_capability))


async def derive_recipes(
    llm: LLMClient, spec: ScorerSpec, capability: Capability, config: RunConfig
) -> tuple[list[Recipe], list[str]]:
    """Recipes for one capability, and the reasons any draft was rejected as malformed."""
    call = recipes_call(spec, capability, config)
    result = await llm.structured(
        config.model,
        call.prompt,
        call.schema,
        task=call.task,
        shape_shown=True,  # the prompt ends with `Return {...}`
        temperature=config.temperature,
        seed=config.seed,
    )
    recipes: list[Recipe] = []
    rejected: list[str] = []
    for i, draft in enumerate(result.recipes[: config.recipes_per_capability], start=1):
        try:
            recipes.append(
                Recipe(
                    id=f"{capability.id.replace('cap', 'rec')}-{i}",
                    capability_id=capability.id,
                    requirement=capability.requirement,
                    name=draft.name,
                    rationale=draft.rationale,
                    generator=config.generator,
                    repairs=draft.repairs,
                    **_edit(draft),
                )
            )
        except ValidationError as exc:
            rejected.append(f"{capability.id} recipe {i}: {exc.errors()[0]['msg']}")
    return recipes, rejected


def _words(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.casefold()))


def _operator(draft: RecipeDraft) -> str | None:
    """The catalogue operator a draft builds on: the one it names, else the one whose
    instruction its own contains word for word (often behind a label: "Extra spaces:
    Double every space ...") or whose name it used as the recipe's name (small models
    do either and leave `operator` empty)."""
    if draft.operator is not None:
        return draft.operator
    instruction, name = _words(draft.instruction), re.sub(r"_?\d+$", "", draft.name.strip())
    for operator, text in OPERATORS.items():
        if _words(text) in instruction or name == operator:
            return operator
    return None


def _edit(draft: RecipeDraft) -> dict[str, Any]:
    """Instruction, roles, relation and transform of a recipe draft.

    A draft built on a catalogue operator with a pair relation gets the operator's own
    instruction and the roles original -> perturbed: code writes its variants exactly as
    that instruction says. Any other draft stays free-form (the operator is ignored where
    its relation is not a pair relation, which one code edit cannot realise)."""
    relation, operator = draft.relation, _operator(draft)
    if operator is not None and isinstance(relation, PairRelation):
        return {
            "instruction": OPERATORS[operator],
            "variant_roles": ["original", "perturbed"],
            "relation": relation.model_copy(
                update={"original": "original", "perturbed": "perturbed"}
            ),
            "transform": operator,
        }
    return {
        "instruction": draft.instruction,
        "variant_roles": list(dict.fromkeys(draft.variant_roles)),
        "relation": relation,
    }
