"""What an interrupted or older run left undecided: its cases and its planted controls.

The recipe flows decide everything as they go; these stages run after them and find nothing
to do, unless a run stopped midway (a budget stop, a crash) or an older suite is resumed. They
select the same questions the flows would have asked and decide them through the same
functions (sane.pipeline.deciding).
"""

from __future__ import annotations

from sane import agents
from sane.panel import controls
from sane.pipeline._runtime import RunContext, run_all
from sane.pipeline.deciding import aligned_recipes, case_decisions, decide_planted, validate_case
from sane.records import Case, Question, Stage
from sane.validators.guards import first_usable, recipe_rejections, usable


async def validate_cases(ctx: RunContext) -> list[str]:
    """Decide any stored case still lacking a decision (a suite from an interrupted or older
    run); the recipe flows normally leave nothing to do here. The cases it looked at."""
    if ctx.store.is_done(Stage.case_panel):
        return []
    suite = ctx.store.recipes()
    recipes = {r.id: r for r in suite}
    decided = case_decisions(ctx)
    aligned = {recipe.id for _, recipe in aligned_recipes(ctx)}
    todo = [
        case
        for case in ctx.store.cases()
        if case.recipe_id in aligned and usable(recipes[case.recipe_id], case)
    ]

    async def one(case: Case) -> None:
        await validate_case(ctx, decided, suite, recipes[case.recipe_id], case)

    await run_all(Stage.case_panel.label, todo, one, ctx.progress)
    ctx.store.mark(Stage.case_panel)
    return [case.id for case in todo]


async def decide_controls(ctx: RunContext) -> list[str]:
    """Planted case controls (sane.panel.controls), never executed: for every
    candidate pair recipe an example edited by code exactly as a plain instruction says
    (right answer: yes); for the first usable case of each tested family a no-op copy
    and a decoy instruction (right answer: no). The recipe flows ask them as they go;
    this decides whatever they did not (a suite from an interrupted or older run). The
    controls it decided."""
    if ctx.store.is_done(Stage.controls):
        return []
    decided = ctx.store.decisions(Question.realization)
    recipes = ctx.store.recipes()
    first_cases = {
        recipe.id: first_usable(recipe, ctx.store.cases(recipe.id))
        for _, recipe in aligned_recipes(ctx)
    }
    first_examples = {
        recipe.id: agents.example_for(seq, 0, len(ctx.examples))
        for seq, recipe in enumerate(recipes)
    }
    planned = controls.case_controls(
        recipes,
        recipe_rejections(recipes),
        first_cases,
        first_examples,
        ctx.examples,
        ctx.spec.scored_field,
    )
    pending = [item for item in planned if item[0] not in decided]

    async def one(item: controls.Control) -> None:
        await decide_planted(ctx, {Question.realization: decided}, [item])

    await run_all(Stage.controls.label, pending, one, ctx.progress)
    ctx.store.mark(Stage.controls)
    return [item[0] for item in pending]
