"""Recipe agent: perturbations and their expected score relation, per capability."""

from __future__ import annotations

from pydantic import ValidationError

from sane.agents._drafts import recipe_list
from sane.llm import LLMClient
from sane.prompts import messages
from sane.records import Capability, Recipe, RunConfig, ScorerSpec


async def derive_recipes(
    llm: LLMClient, spec: ScorerSpec, capability: Capability, config: RunConfig
) -> tuple[list[Recipe], list[str]]:
    """Recipes for one capability, and the reasons any draft was rejected as malformed."""
    prompt = messages(
        "recipes.j2", spec=spec, capability=capability, limit=config.recipes_per_capability
    )
    result = await llm.structured(
        config.model,
        prompt,
        recipe_list(config.recipes_per_capability),
        task="recipes",
        temperature=config.temperature,
        seed=config.seed,
    )
    recipes: list[Recipe] = []
    rejected: list[str] = []
    for i, draft in enumerate(result.recipes[: config.recipes_per_capability], start=1):
        roles = list(dict.fromkeys(draft.variant_roles))
        try:
            recipes.append(
                Recipe(
                    id=f"{capability.id.replace('cap', 'rec')}-{i}",
                    capability_id=capability.id,
                    requirement=capability.requirement,
                    name=draft.name,
                    instruction=draft.instruction,
                    variant_roles=roles,
                    relation=draft.relation,
                    rationale=draft.rationale,
                    generator=config.generator,
                )
            )
        except ValidationError as exc:
            rejected.append(f"{capability.id} recipe {i}: {exc.errors()[0]['msg']}")
    return recipes, rejected
