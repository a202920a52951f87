"""Asking the panel: each question's stored decision, or a fresh one stored at once.

The live recipe flows (sane.pipeline.generate) and the recovery of what an interrupted run
left (sane.pipeline.resume) decide through these same functions, so a question is asked the
same way on both paths and a rerun finds it decided.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from sane.llm import Rank, ranked
from sane.panel import controls
from sane.panel.kinds import CASE_TEMPLATES
from sane.pipeline import call_order
from sane.pipeline._runtime import RunContext
from sane.records import Case, Decision, PanelDecision, Question, Recipe
from sane.validators.families import aligned_recipe_ids


async def decide_planted(
    ctx: RunContext, decided: Decided, planned: list[controls.Control]
) -> None:
    """The realization decision on each planted control not decided yet (stored)."""
    done = decided[Question.realization]

    async def one(subject: str, recipe: Recipe, case: Case) -> None:
        asked = ctx.panel_kind.control_question(ctx.spec, recipe, case)
        with ranked(call_order.CONTROL_RANK):
            done[subject] = await ctx.panel.decide_question(subject, asked)
        ctx.store.put_decision(done[subject])

    await together(*(one(*item) for item in planned if item[0] not in done))


async def together(*work: Awaitable[None]) -> None:
    """Await all of `work`; the first failure (a budget stop) is raised once all are done,
    so that every call already paid for reaches the cache (plain `gather` would leave the
    others running, to be cancelled uncached when the run ends)."""
    for outcome in await asyncio.gather(*work, return_exceptions=True):
        if isinstance(outcome, BaseException):
            raise outcome


async def align(
    ctx: RunContext, decided: dict[str, PanelDecision], subject: str, recipe: Recipe
) -> None:
    """The stored alignment decision on a recipe (or its mirror), or a fresh one (stored)."""
    if subject in decided:
        return
    asked = ctx.panel_kind.question(Question.alignment, ctx.spec, recipe)
    decided[subject] = await ctx.panel.decide_question(subject, asked)
    ctx.store.put_decision(decided[subject])


def aligned_recipes(ctx: RunContext) -> list[tuple[int, Recipe]]:
    """The recipes the suite tests (sane.validators.families), with their sequence numbers."""
    recipes = ctx.store.recipes()
    aligned = aligned_recipe_ids(recipes, ctx.store.decisions(Question.alignment), ctx.config)
    return [(seq, r) for seq, r in enumerate(recipes) if r.id in aligned]


Decided = dict[Question, dict[str, PanelDecision]]


def case_decisions(ctx: RunContext) -> Decided:
    return {question: ctx.store.decisions(question) for question in CASE_TEMPLATES}


async def _decide_case(
    ctx: RunContext,
    decided: Decided,
    suite: list[Recipe],
    recipe: Recipe,
    case: Case,
    question: Question,
) -> bool:
    """The stored decision on one case question, or a fresh one (stored). A case written
    by a code transform realizes its recipe by construction (the recipe's instruction is the
    transform's own), so that question is decided by code, with no vote."""
    stored = decided[question].get(case.id)
    if stored is None and question is Question.realization and recipe.transform is not None:
        stored = PanelDecision(
            subject_id=case.id, question=question, decision=Decision.yes, votes=[]
        )
        ctx.store.put_decision(stored)
    if stored is None:
        asked = ctx.panel_kind.question(question, ctx.spec, recipe, case, suite)
        stored = await ctx.panel.decide_question(case.id, asked)
        ctx.store.put_decision(stored)
    return stored.decision is Decision.yes


async def validate_case(
    ctx: RunContext,
    decided: Decided,
    suite: list[Recipe],
    recipe: Recipe,
    case: Case,
    rank: Callable[[Question], Rank] | None = None,
) -> bool:
    """Whether a case is joint-valid. Sequentially, applicability is asked only of a realized
    case (an unrealized one cannot be joint-valid); exhaustively, both questions at once.
    `rank` gives each question's calls their rank (sane.pipeline.call_order); without it they keep
    the caller's."""

    async def decide(question: Question) -> bool:
        with ranked(rank(question)) if rank is not None else contextlib.nullcontext():
            return await _decide_case(ctx, decided, suite, recipe, case, question)

    if ctx.config.exhaustive:
        realized, applicable = await asyncio.gather(
            decide(Question.realization), decide(Question.applicability)
        )
        return realized and applicable
    return await decide(Question.realization) and await decide(Question.applicability)
