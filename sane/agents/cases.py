"""Case agent: one case of a recipe, written from one source example."""

from __future__ import annotations

from sane.agents._drafts import case_draft
from sane.errors import LLMError
from sane.generators.transforms import TransformError, TransformInput, apply_transform
from sane.llm import LLMClient
from sane.prompts import messages
from sane.records import Case, Example, Recipe, RunConfig, ScorerSpec


def example_for(recipe_seq: int, case_index: int, n_examples: int) -> int:
    """Spread a recipe's cases over the examples, offset per recipe."""
    return (recipe_seq * 7 + case_index) % n_examples


async def instantiate_case(
    llm: LLMClient,
    spec: ScorerSpec,
    recipe: Recipe,
    recipe_seq: int,
    case_index: int,
    examples: list[Example],
    config: RunConfig,
) -> Case:
    """Ask for the variants; a missing role makes the case unrealised, not invented.

    A recipe with a ``transform`` gets its variants from code, not from the model.
    """
    example_index = example_for(recipe_seq, case_index, len(examples))
    example = examples[example_index]
    case_id = f"{recipe.id}/case-{case_index}"
    if recipe.transform is not None:
        return _transformed_case(spec, recipe, case_id, case_index, example_index, examples)
    prompt = messages(
        "case.j2",
        spec=spec,
        recipe=recipe,
        relation_json=recipe.relation.model_dump_json(),
        case_index=case_index,
        example=example,
    )
    base = {
        "id": case_id,
        "recipe_id": recipe.id,
        "index": case_index,
        "example_index": example_index,
        "example": example,
    }
    original = (
        {"original": example[spec.scored_field]} if "original" in recipe.variant_roles else {}
    )
    to_write = tuple(role for role in recipe.variant_roles if role != "original")
    if not to_write:  # e.g. repeatability of the original: nothing for a model to write
        return Case(**base, variants=original, notes="the original only")
    try:
        draft = await llm.structured(
            config.model,
            prompt,
            case_draft(to_write),
            task="cases",
            temperature=config.temperature,
            seed=config.seed,
        )
    except LLMError as exc:
        return Case(**base, variants={}, error=str(exc))
    variants = original | {v.role: v.text for v in draft.variants}
    missing = [role for role in recipe.variant_roles if role not in variants]
    error = f"model gave no text for roles {missing}" if missing else None
    return Case(**base, variants=variants, notes=draft.notes, error=error)


def _transformed_case(
    spec: ScorerSpec,
    recipe: Recipe,
    case_id: str,
    case_index: int,
    example_index: int,
    examples: list[Example],
) -> Case:
    """Every non-original role gets the transform's output; a transform that cannot apply
    leaves the case unrealised with the reason, like a failed model call."""
    example = examples[example_index]
    data = TransformInput(
        text=example[spec.scored_field],
        example_index=example_index,
        examples=tuple(examples),
        scored_field=spec.scored_field,
    )
    base = {
        "id": case_id,
        "recipe_id": recipe.id,
        "index": case_index,
        "example_index": example_index,
        "example": example,
    }
    try:
        text = apply_transform(str(recipe.transform), data)
    except (TransformError, KeyError) as exc:
        return Case(**base, variants={}, error=f"transform {recipe.transform}: {exc}")
    variants = {role: data.text if role == "original" else text for role in recipe.variant_roles}
    return Case(**base, variants=variants, notes=f"written by code: transform {recipe.transform}")
