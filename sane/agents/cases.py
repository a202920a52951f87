"""Case agent: one case of a recipe, written from one source example."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sane.agents._drafts import AgentCall, case_draft
from sane.edits import TransformError, TransformInput, apply_transform
from sane.errors import LLMError
from sane.prompts import messages
from sane.records import Case, Example, Recipe, RunConfig, ScorerSpec

if TYPE_CHECKING:  # the client (litellm) loads when a run starts, not on import
    from sane.llm import LLMClient


def example_for(recipe_seq: int, case_index: int, n_examples: int) -> int:
    """Spread a recipe's cases over the examples, offset per recipe."""
    return (recipe_seq * 7 + case_index) % n_examples


def examples_to_try(recipe_seq: int, case_index: int, n_cases: int, n_examples: int) -> list[int]:
    """The examples a recipe's case is written from, in order: its own (`example_for`), then,
    while its writer declines (the recipe does not apply to the example), every
    `n_cases`-th example after it that no case of the recipe starts on. So a recipe that
    fits only some examples still gets its cases from those, two of its cases never share an
    example, and none is tried twice (a repeated example is not more evidence)."""
    start = example_for(recipe_seq, 0, n_examples)
    later = range(case_index + n_cases, n_examples, n_cases)
    return [example_for(recipe_seq, case_index, n_examples)] + [
        (start + k) % n_examples for k in later
    ]


def written_roles(recipe: Recipe) -> tuple[str, ...]:
    """The variant roles a model writes for a recipe's case (the original is copied)."""
    return tuple(role for role in recipe.variant_roles if role != "original")


def case_call(spec: ScorerSpec, recipe: Recipe, case_index: int, example: Example) -> AgentCall:
    """The call that writes one case of a recipe from `example` (none is made for a recipe
    with a code transform, or one with no role to write)."""
    prompt = messages(
        "case.j2",
        spec=spec,
        recipe=recipe,
        relation_json=recipe.relation.model_dump_json(),
        case_index=case_index,
        example=example,
    )
    return AgentCall("cases", prompt, case_draft(written_roles(recipe)))


async def instantiate_case(
    llm: LLMClient,
    spec: ScorerSpec,
    recipe: Recipe,
    recipe_seq: int,
    case_index: int,
    examples: list[Example],
    config: RunConfig,
) -> Case:
    """Ask for the variants; a missing role makes the case unrealised, not invented. Where
    the writer says the recipe does not apply to the example (nothing it can change), the
    case is written from the next example it may use (`examples_to_try`), and stays
    unrealised with the writer's reason when none is left; the examples declined are named
    in its notes.

    A recipe with a ``transform`` gets its variants from code, not from the model.
    """
    case_id = f"{recipe.id}/case-{case_index}"
    if recipe.transform is not None:
        start = example_for(recipe_seq, 0, len(examples))
        return _transformed_case(spec, recipe, case_id, case_index, start, examples)
    declined: list[str] = []
    for example_index in examples_to_try(recipe_seq, case_index, config.cases, len(examples)):
        case = await _written_case(llm, spec, recipe, case_id, case_index, example_index,
                                   examples[example_index], config)  # fmt: skip
        if case.not_applicable is None:
            break
        declined.append(f"example {example_index}: {case.not_applicable}")
    earlier = declined if case.not_applicable is None else declined[:-1]  # the last: its own
    if earlier:
        case = case.model_copy(
            update={"notes": f"declined first ({'; '.join(earlier)}). {case.notes}".strip()}
        )
    return case


async def _written_case(
    llm: LLMClient,
    spec: ScorerSpec,
    recipe: Recipe,
    case_id: str,
    case_index: int,
    example_index: int,
    example: Example,
    config: RunConfig,
) -> Case:
    """One try at the case: the writer's variants from one example, or its decline."""
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
    if not written_roles(
        recipe
    ):  # e.g. repeatability of the original: nothing for a model to write
        return Case(**base, variants=original, notes="the original only")
    try:
        call = case_call(spec, recipe, case_index, example)
        draft = await llm.structured(
            config.model,
            call.prompt,
            call.schema,
            task=call.task,
            shape_shown=True,  # the prompt ends with `Return {...}`
            temperature=config.temperature,
            seed=config.seed,
        )
    except LLMError as exc:
        return Case(**base, variants={}, error=str(exc))
    if draft.declined:
        return Case(**base, variants=original, notes=draft.notes,
                    not_applicable=" ".join(str(draft.not_applicable).split()))  # fmt: skip
    variants = original | {v.role: v.text for v in draft.variants}
    missing = [role for role in recipe.variant_roles if role not in variants]
    error = f"model gave no text for roles {missing}" if missing else None
    return Case(**base, variants=variants, notes=draft.notes, error=error)


def _transform_input(spec: ScorerSpec, examples: list[Example], index: int) -> TransformInput:
    return TransformInput(
        text=examples[index][spec.scored_field],
        example_index=index,
        examples=tuple(examples),
        scored_field=spec.scored_field,
        other_field=spec.other_field or "",
    )


def _transformed_case(
    spec: ScorerSpec,
    recipe: Recipe,
    case_id: str,
    case_index: int,
    start: int,
    examples: list[Example],
) -> Case:
    """Every non-original role gets the transform's output. Case i takes the i-th example,
    counting from the recipe's own offset, that the transform can change (a number to
    change, two sentences to reorder): an edit is not tried on a text it cannot apply to.
    When fewer examples fit than there are cases, the rest stay unrealised with the reason
    (an example is never used twice: a repeated case is not more evidence)."""
    order = [(start + k) % len(examples) for k in range(len(examples))]
    fitting: list[tuple[int, str]] = []
    reasons: list[str] = []
    for index in order:
        try:
            fitting.append(
                (
                    index,
                    apply_transform(str(recipe.transform), _transform_input(spec, examples, index)),
                )
            )
        except (TransformError, KeyError) as exc:
            reasons.append(str(exc))
        if len(fitting) > case_index:
            break
    index = fitting[case_index][0] if len(fitting) > case_index else order[case_index % len(order)]
    base = {
        "id": case_id,
        "recipe_id": recipe.id,
        "index": case_index,
        "example_index": index,
        "example": examples[index],
    }
    if len(fitting) <= case_index:
        why = reasons[0] if reasons else "no example left"
        error = (
            f"transform {recipe.transform}: {len(fitting)} of {len(examples)} examples fit, "
            f"case {case_index} has none ({why})"
        )
        return Case(**base, variants={}, error=error)
    text, original = fitting[case_index][1], examples[index][spec.scored_field]
    variants = {role: original if role == "original" else text for role in recipe.variant_roles}
    return Case(**base, variants=variants, notes=f"written by code: transform {recipe.transform}")
