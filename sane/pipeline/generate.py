"""The generate graph's stages: capabilities, recipes, each recipe's flow (alignment, its
mirror, its family's cases and case panel, its planted controls) and the families.

A stage asks the store what is already done, does only the rest, and stores each item as
soon as it is finished. Model failures become error records on the item they hit; only a
budget stop or a bug escapes a stage.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from sane import agents
from sane.errors import BudgetExceeded, LLMError, SaneError
from sane.generators import get_generator
from sane.llm import ranked
from sane.panel import controls
from sane.panel.kinds import CASE_TEMPLATES
from sane.panel.sequential import FamilyPlan, FamilyProgress, run_family
from sane.pipeline import call_order
from sane.pipeline._runtime import RecipeFlows, RecipeOutcome, RunContext, Tally, run_all
from sane.pipeline.deciding import align, decide_planted, together, validate_case
from sane.records import Capability, Case, Family, Question, Recipe, Stage
from sane.validators.families import aligned_recipe_ids, family_counts
from sane.validators.guards import recipe_rejections, repair_recipe, usable


class StageFailed(SaneError):
    """A stage that cannot produce anything for the stages after it."""


async def derive_capabilities(ctx: RunContext) -> list[Capability]:
    """The spec's capabilities (the generator's), stored; a rerun reads them back."""
    if ctx.store.is_done(Stage.capabilities):
        return ctx.store.capabilities()
    ctx.store.clear_errors(Stage.capabilities)
    ctx.progress(Stage.capabilities.label, 0, 1)
    # The configured generator (derived by the agents, or a fixed recipe set) supplies
    # capabilities and recipes; every later stage is the same for both.
    generator = get_generator(ctx.config.generator)
    try:
        capabilities = await generator.capabilities(ctx.llm, ctx.spec, ctx.examples, ctx.config)
    except LLMError as exc:
        ctx.store.put_error(Stage.capabilities, ctx.spec.name, str(exc))
        raise StageFailed(f"capability derivation failed: {exc}") from exc
    ctx.store.put_capabilities(capabilities)
    ctx.store.mark(Stage.capabilities)
    ctx.progress(Stage.capabilities.label, 1, 1)
    return capabilities


async def derive_recipes(ctx: RunContext, capabilities: list[Capability]) -> list[Recipe]:
    """Each capability's recipes, repaired where code can and stored in capability order; a
    rerun reads them back."""
    if ctx.store.is_done(Stage.recipes):
        return ctx.store.recipes()
    ctx.store.clear_errors(Stage.recipes)
    generator = get_generator(ctx.config.generator)
    derived: dict[str, list[Recipe]] = {}

    async def one(capability: Capability) -> None:
        try:
            recipes, rejected = await generator.recipes(ctx.llm, ctx.spec, capability, ctx.config)
        except LLMError as exc:
            ctx.store.put_error(Stage.recipes, capability.id, str(exc))
            return
        for reason in rejected:
            ctx.store.put_error(Stage.recipes, capability.id, f"malformed recipe dropped: {reason}")
        derived[capability.id] = recipes

    # counted per capability (one call each), so the line says so: "recipes: 4/4" read as
    # four recipes where a capability asks for several
    await run_all(f"{Stage.recipes.label} (capabilities)", capabilities, one, ctx.progress)
    # Stored in capability order so recipe ids and sequence numbers are stable; the guards
    # repair what code can (requirement, unused roles) before anything is stored.
    ctx.store.put_recipes([repair_recipe(r) for c in capabilities for r in derived.get(c.id, [])])
    ctx.store.mark(Stage.recipes)
    return ctx.store.recipes()


def plan_recipe_flows(ctx: RunContext, recipes: list[Recipe]) -> RecipeFlows | None:
    """What the recipe flows share, with the recipes that flow on from `derive_recipes`,
    each on its own (`recipe_flow`): every recipe no guard rejected, in stored order; None
    once their flows have all finished."""
    if ctx.store.is_done(Stage.cases):
        return None
    ctx.store.clear_errors(Stage.cases)
    rejected = recipe_rejections(recipes)  # never put to the panel
    kept = [r.id for r in recipes if r.id not in rejected]
    questions = (Question.alignment, *CASE_TEMPLATES)
    return RecipeFlows(
        kept=kept,
        recipes={r.id: (seq, r) for seq, r in enumerate(recipes)},
        decisions={question: ctx.store.decisions(question) for question in questions},
        alignment=Tally(Stage.alignment.label, 2 * len(kept), ctx.progress),
        cases=Tally(Stage.cases.label, len(kept) * ctx.config.cases, ctx.progress),
    )


async def recipe_flow(ctx: RunContext, flows: RecipeFlows, recipe_id: str) -> RecipeOutcome:
    """One recipe through alignment, its mirror, and (when aligned) its family's cases and
    case panel, with its planted controls, without waiting for any other recipe.

    The mirror (the same recipe claiming the opposite direction: a control, and the
    contrastive half) is always asked, at the same time as the recipe; on the blind panel
    after it, so that the mirror's ballot replays the recipe's cached answer. The
    recipe's faithful-edit control is asked alongside, and
    the family's no-op and decoy controls as soon as its first usable case is known
    (`decide_controls` then finds them decided). A budget stop is returned for
    `join_recipes`, so that the other recipes' calls already under way finish and reach
    the cache first.
    """
    seq, recipe = flows.recipes[recipe_id]
    alignment = flows.decisions[Question.alignment]
    suite = [r for _, r in flows.recipes.values()]
    example = agents.example_for(seq, 0, len(ctx.examples))
    field = ctx.spec.scored_field
    faithful = controls.recipe_controls(seq, recipe, example, ctx.examples, field, suite)
    asking = [asyncio.create_task(decide_planted(ctx, flows.decisions, faithful))]

    def on_first_usable(case: Case) -> None:
        planned = controls.family_controls(recipe, case, suite, seq, ctx.examples, field)
        asking.append(asyncio.create_task(decide_planted(ctx, flows.decisions, planned)))

    aligned, budget_stop = False, None
    try:
        with ranked(call_order.ALIGNMENT_RANK):
            mirrored = controls.mirrored_recipe(recipe)
            after_recipe = ctx.panel_kind.mirror_after_recipe
            if mirrored is None or after_recipe:
                await align(ctx, alignment, recipe.id, recipe)
            if mirrored is not None:
                mirror = align(ctx, alignment, controls.mirror_id(recipe.id), mirrored)
                if after_recipe:
                    await mirror  # after the recipe: its ballot replays the recipe's answer
                else:
                    await together(align(ctx, alignment, recipe.id, recipe), mirror)
        flows.alignment.add(2)
        # the other recipes were checked by the guards when the flows were planned
        aligned = recipe.id in aligned_recipe_ids([recipe], alignment, ctx.config)
        if aligned:
            await _run_family(ctx, flows, seq, recipe, on_first_usable)
        else:
            flows.cases.add(ctx.config.cases)
    except BudgetExceeded as stop:
        budget_stop = stop
    except BaseException:
        for task in asking:
            task.cancel()
        await asyncio.gather(*asking, return_exceptions=True)
        raise
    # the controls' calls under way finish (and reach the cache) even after a budget stop
    for outcome in await asyncio.gather(*asking, return_exceptions=True):
        if isinstance(outcome, BudgetExceeded):
            budget_stop = budget_stop or outcome
        elif isinstance(outcome, BaseException):
            raise outcome
    return RecipeOutcome(recipe.id, aligned, budget_stop)


def join_recipes(ctx: RunContext, outcomes: list[RecipeOutcome]) -> None:
    """Where the recipe flows meet: a budget stop in any of them ends the run (resumable);
    otherwise alignment and cases are done."""
    for outcome in outcomes:
        if outcome.budget_stop is not None:
            raise outcome.budget_stop
    ctx.store.mark(Stage.alignment)
    ctx.store.mark(Stage.cases)


async def _run_family(
    ctx: RunContext,
    flows: RecipeFlows,
    seq: int,
    recipe: Recipe,
    first_usable: Callable[[Case], None],
) -> None:
    """Write and validate an aligned recipe's cases, each validated as soon as it is written.

    The family's schedule (sane.panel.sequential) stops once the family is decided: a
    family that can no longer reach tau stops generating cases (in budget mode, one that
    reached tau too); one that can still pass gets all n cases. `first_usable` hears of
    the family's first usable case (the lowest index the agent wrote and no guard
    rejected: the one its controls copy) as soon as every case before it is known.
    """
    existing = {c.id: c for c in ctx.store.cases(recipe.id)}
    decided = flows.decisions
    suite = [r for _, r in flows.recipes.values()]
    config = ctx.config
    plan = FamilyPlan(config.cases, config.threshold, config.exhaustive, config.stop_at_tau)
    tally = flows.cases
    progress = FamilyProgress(plan)
    rank = call_order.family_ranks(progress)  # its calls go first while it has most ahead
    written: dict[int, Case | None] = {}  # index -> the case if usable, None if not
    announced = False

    def known(index: int, case: Case, usable: bool) -> None:
        nonlocal announced
        written[index] = case if usable else None
        first = 0
        while not announced and first in written:
            if written[first] is not None:
                announced = True
                first_usable(written[first])  # type: ignore[arg-type]
            first += 1

    async def evaluate(index: int) -> bool:
        case = existing.get(f"{recipe.id}/case-{index}")
        if case is None:
            with ranked(rank(Stage.cases)):
                case = await agents.instantiate_case(
                    ctx.llm, ctx.spec, recipe, seq, index, ctx.examples, config
                )
            ctx.store.put_case(case)
        # A case the agent could not write has nothing to vote on, and one a guard
        # rejects is never put to the panel: both stay unrealised.
        ok = usable(recipe, case)
        known(index, case, ok)
        valid = ok and await validate_case(ctx, decided, suite, recipe, case, rank)
        if case.error:
            ctx.store.put_error(Stage.cases, case.id, case.error)
        tally.add(1)
        return valid

    run = await run_family(plan, evaluate, progress)
    tally.add(plan.n - run.generated)


async def select_families(ctx: RunContext) -> list[Family]:
    """The aligned recipes' families, counted from the decisions in force (stored)."""
    families = family_counts(ctx.store, ctx.config)
    ctx.store.put_families(families)
    ctx.store.mark(Stage.families)
    return families
