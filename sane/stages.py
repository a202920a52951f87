"""The stages the workflow graph wires together, each idempotent on the suite store.

A stage asks the store what is already done, does only the rest, and stores
each item as soon as it is finished. Model and scorer failures become error
records on the item they hit; only a budget stop or a bug escapes a stage.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from sane import agents, call_order
from sane._runtime import RecipeFlows, RecipeOutcome, RunContext, Tally, _no_progress, run_all
from sane.agents.rewording import reword
from sane.errors import BudgetExceeded, LLMError, SaneError, ScorerError
from sane.generators import get_generator
from sane.llm import Rank, ranked
from sane.manipulations import (
    CallFailed,
    SearchConfig,
    SearchResult,
    load_catalogue,
    search_exploits,
)
from sane.panel import controls
from sane.panel.kinds import CASE_TEMPLATES
from sane.panel.sequential import FamilyPlan, FamilyProgress, run_family
from sane.records import (
    Capability,
    Case,
    Decision,
    Example,
    ExecutionRecord,
    Family,
    PanelDecision,
    Question,
    Recipe,
    Stage,
    Verdict,
)
from sane.reporting import Report, build_report, code_fingerprint
from sane.scorers.base import Target
from sane.scorers.execute import (
    batchable,
    estimate_tolerance,
    normalise,
    run_case,
    run_case_batch,
    score_variants,
)
from sane.validators.families import aligned_recipe_ids, executable_cases, family_counts
from sane.validators.guards import first_usable, recipe_rejections, repair_recipe, usable

TOLERANCE_SAMPLE = 5
BATCH_CASES = 64  # cases per score_batch call of a batch-capable target


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
    asking = [asyncio.create_task(_decide_controls(ctx, flows.decisions, faithful))]

    def on_first_usable(case: Case) -> None:
        planned = controls.family_controls(recipe, case, suite, seq, ctx.examples, field)
        asking.append(asyncio.create_task(_decide_controls(ctx, flows.decisions, planned)))

    aligned, budget_stop = False, None
    try:
        with ranked(call_order.ALIGNMENT_RANK):
            mirrored = controls.mirrored_recipe(recipe)
            after_recipe = ctx.panel_kind.mirror_after_recipe
            if mirrored is None or after_recipe:
                await _align(ctx, alignment, recipe.id, recipe)
            if mirrored is not None:
                mirror = _align(ctx, alignment, controls.mirror_id(recipe.id), mirrored)
                if after_recipe:
                    await mirror  # after the recipe: its ballot replays the recipe's answer
                else:
                    await _together(_align(ctx, alignment, recipe.id, recipe), mirror)
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


async def _decide_controls(
    ctx: RunContext, decided: Decided, planned: list[controls.Control]
) -> None:
    """The realization decision on each planted control not decided yet (stored)."""
    done = decided[Question.realization]

    async def one(subject: str, recipe: Recipe, case: Case) -> None:
        asked = ctx.panel_kind.control_question(ctx.spec, recipe, case)
        with ranked(call_order.CONTROL_RANK):
            done[subject] = await ctx.panel.decide_question(subject, asked)
        ctx.store.put_decision(done[subject])

    await _together(*(one(*item) for item in planned if item[0] not in done))


async def _together(*work: Awaitable[None]) -> None:
    """Await all of `work`; the first failure (a budget stop) is raised once all are done,
    so that every call already paid for reaches the cache (plain `gather` would leave the
    others running, to be cancelled uncached when the run ends)."""
    for outcome in await asyncio.gather(*work, return_exceptions=True):
        if isinstance(outcome, BaseException):
            raise outcome


def join_recipes(ctx: RunContext, outcomes: list[RecipeOutcome]) -> None:
    """Where the recipe flows meet: a budget stop in any of them ends the run (resumable);
    otherwise alignment and cases are done."""
    for outcome in outcomes:
        if outcome.budget_stop is not None:
            raise outcome.budget_stop
    ctx.store.mark(Stage.alignment)
    ctx.store.mark(Stage.cases)


async def _align(
    ctx: RunContext, decided: dict[str, PanelDecision], subject: str, recipe: Recipe
) -> None:
    """The stored alignment decision on a recipe (or its mirror), or a fresh one (stored)."""
    if subject in decided:
        return
    asked = ctx.panel_kind.question(Question.alignment, ctx.spec, recipe)
    decided[subject] = await ctx.panel.decide_question(subject, asked)
    ctx.store.put_decision(decided[subject])


def _aligned(ctx: RunContext) -> list[tuple[int, Recipe]]:
    """The recipes the suite tests (sane.validators.families), with their sequence numbers."""
    recipes = ctx.store.recipes()
    aligned = aligned_recipe_ids(recipes, ctx.store.decisions(Question.alignment), ctx.config)
    return [(seq, r) for seq, r in enumerate(recipes) if r.id in aligned]


Decided = dict[Question, dict[str, PanelDecision]]


def _case_decisions(ctx: RunContext) -> Decided:
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


async def _validate_case(
    ctx: RunContext,
    decided: Decided,
    suite: list[Recipe],
    recipe: Recipe,
    case: Case,
    rank: Callable[[Question], Rank] | None = None,
) -> bool:
    """Whether a case is joint-valid. Sequentially, applicability is asked only of a realized
    case (an unrealized one cannot be joint-valid); exhaustively, both questions at once.
    `rank` gives each question's calls their rank (sane.call_order); without it they keep
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
        valid = ok and await _validate_case(ctx, decided, suite, recipe, case, rank)
        if case.error:
            ctx.store.put_error(Stage.cases, case.id, case.error)
        tally.add(1)
        return valid

    run = await run_family(plan, evaluate, progress)
    tally.add(plan.n - run.generated)


async def validate_cases(ctx: RunContext) -> list[str]:
    """Decide any stored case still lacking a decision (a suite from an interrupted or older
    run); the recipe flows normally leave nothing to do here. The cases it looked at."""
    if ctx.store.is_done(Stage.case_panel):
        return []
    suite = ctx.store.recipes()
    recipes = {r.id: r for r in suite}
    decided = _case_decisions(ctx)
    aligned = {recipe.id for _, recipe in _aligned(ctx)}
    todo = [
        case
        for case in ctx.store.cases()
        if case.recipe_id in aligned and usable(recipes[case.recipe_id], case)
    ]

    async def one(case: Case) -> None:
        await _validate_case(ctx, decided, suite, recipes[case.recipe_id], case)

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
        recipe.id: first_usable(recipe, ctx.store.cases(recipe.id)) for _, recipe in _aligned(ctx)
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
        await _decide_controls(ctx, {Question.realization: decided}, [item])

    await run_all(Stage.controls.label, pending, one, ctx.progress)
    ctx.store.mark(Stage.controls)
    return [item[0] for item in pending]


async def select_families(ctx: RunContext) -> list[Family]:
    """The aligned recipes' families, counted from the decisions in force (stored)."""
    families = family_counts(ctx.store, ctx.config)
    ctx.store.put_families(families)
    ctx.store.mark(Stage.families)
    return families


def _executable_cases(ctx: RunContext) -> list[tuple[Recipe, Case]]:
    store = ctx.store
    return executable_cases(
        store.recipes(),
        store.cases(),
        store.families(),
        store.decisions(Question.realization),
        store.decisions(Question.applicability),
    )


def _timeout(ctx: RunContext, name: str) -> float:
    """A target's own `timeout_s` from the spec, else the run's `--timeout`."""
    own = next((t.timeout_s for t in ctx.spec.targets if t.name == name), None)
    return own if own is not None else ctx.execution.timeout_s


async def _tolerance(ctx: RunContext, name: str, target: Target, sample: list[Example]) -> float:
    """The target's stored tolerance, or a fresh estimate from repeat-run noise."""
    stored = ctx.store.tolerances().get(name)
    if stored is not None:
        return float(stored["tolerance"])
    ctx.progress(f"{Stage.tolerance.label} {name}", 0, 1)
    estimate = await estimate_tolerance(
        target,
        sample,
        ctx.spec.output,
        floor=ctx.execution.tolerance_floor,
        timeout_s=_timeout(ctx, name),
    )
    ctx.store.put_tolerance(name, estimate.model_dump(mode="json"))
    ctx.progress(f"{Stage.tolerance.label} {name}", 1, 1)
    return estimate.tolerance


async def execute_targets(ctx: RunContext) -> dict[str, int]:
    """Score every joint-valid case of every validated family with every target.

    Targets run concurrently. A target with `score_batch` scores many cases'
    variants per call (local metrics encode lists far faster than single texts);
    the others run case by case, concurrently. Executions that ended in an error
    are tried again on a rerun; passes and faults are final. The cases each target ran.
    """
    pairs = _executable_cases(ctx)
    settled = {
        (e.target, e.case_id) for e in ctx.store.executions() if e.verdict is not Verdict.error
    }
    sample = [case.example for _, case in pairs[:TOLERANCE_SAMPLE]] or ctx.examples[
        :TOLERANCE_SAMPLE
    ]
    ctx.store.clear_errors(Stage.tolerance)

    ran: dict[str, int] = {}

    async def one_target(item: tuple[str, Target]) -> None:
        name, target = item
        todo = [(recipe, case) for recipe, case in pairs if (name, case.id) not in settled]
        if todo:
            await _execute_target(ctx, name, target, todo, sample)
        ran[name] = len(todo)

    await run_all(Stage.execute.label, list(ctx.targets.items()), one_target, _no_progress)
    return ran


async def _execute_target(
    ctx: RunContext,
    name: str,
    target: Target,
    todo: list[tuple[Recipe, Case]],
    sample: list[Example],
) -> None:
    try:
        tolerance = await _tolerance(ctx, name, target, sample)
    except BudgetExceeded:
        raise  # a budget stop ends the run (resumable); it is no scorer error
    except SaneError as exc:
        # Without a tolerance no relation can be checked: every case is an error.
        ctx.store.put_error(Stage.tolerance, name, str(exc), target=name)
        for recipe, case in todo:
            _put_execution(
                ctx,
                ExecutionRecord(
                    target=name,
                    case_id=case.id,
                    recipe_id=recipe.id,
                    scores={},
                    tolerance=None,
                    verdict=Verdict.error,
                    error=f"tolerance could not be measured: {exc}",
                ),
            )
        return
    batch = [item for item in todo if batchable(target, *item, ctx.execution.repeats)]
    single = [item for item in todo if not batchable(target, *item, ctx.execution.repeats)]
    work: list[list[tuple[Recipe, Case]]] = [
        batch[i : i + BATCH_CASES] for i in range(0, len(batch), BATCH_CASES)
    ] + [[item] for item in single]

    async def one(items: list[tuple[Recipe, Case]]) -> None:
        repeats, timeout_s = ctx.execution.repeats, _timeout(ctx, name)
        if len(items) == 1 and not batchable(target, *items[0], repeats):
            recipe, case = items[0]
            records = [
                await run_case(
                    target, ctx.spec, recipe, case, tolerance, repeats=repeats, timeout_s=timeout_s
                )
            ]
        else:
            records = await run_case_batch(
                target, ctx.spec, items, tolerance, repeats=repeats, timeout_s=timeout_s
            )
        for record in records:
            _put_execution(ctx, record)

    await run_all(f"{Stage.execute.label} {name}", work, one, ctx.progress)


async def search_inflation(ctx: RunContext) -> dict[str, SearchResult]:
    """Each target's score-inflation search (sane.manipulations): the catalogue's
    manipulations against their placebos on the suite's examples, then the strongest mutated
    and confirmed on held-out examples, within `--max-target-calls` calls per target. It
    needs no oracle. Every target call is stored as it is made, so an interrupted search
    resumes; a target whose definition has not changed since its search is not searched
    again. A target that fails gets an error, never a verdict."""
    budget = ctx.execution.max_target_calls
    if budget <= 0 or len(ctx.examples) < 4:
        return {}
    catalogue = load_catalogue()
    stored = {r.target: r for r in ctx.store.inflation()}
    results: dict[str, SearchResult] = {}
    sample = ctx.examples[:TOLERANCE_SAMPLE]

    async def one(item: tuple[str, Target]) -> None:
        name, target = item
        definition = ctx.definitions.get(name)
        previous = stored.get(name)
        if (
            previous is not None
            and previous.error is None
            and previous.definition_sha256 == definition
        ):
            results[name] = previous
            return
        try:
            tolerance = await _tolerance(ctx, name, target, sample)
        except SaneError as exc:  # no tolerance, no relation to check: an error, not a verdict
            ctx.store.put_error(Stage.inflation, name, str(exc), target=name)
            results[name] = SearchResult(
                target=name, definition_sha256=definition, tolerance=0.0, calls=0,
                budget=budget, candidates=0, error=f"tolerance could not be measured: {exc}",
            )  # fmt: skip
            ctx.store.put_inflation(results[name])
            return
        spec, timeout_s = ctx.spec.output, _timeout(ctx, name)

        async def score(record: dict[str, str]) -> float:
            """One target call on the 0-1 scale; a failed one is stored as an error and
            leaves that candidate unmeasured on that example (never a score)."""
            try:
                raw = (await score_variants(target, {"text": record}, 1, timeout_s))["text"][0]
                value = normalise(raw, target.contract, spec)
            except (ScorerError, LLMError) as exc:
                ctx.store.put_error(Stage.inflation, name, str(exc), target=name)
                raise CallFailed(str(exc)) from exc
            return value if spec.higher_is_better else 1.0 - value

        config = SearchConfig(
            budget=max(budget, 10),
            seed=ctx.config.seed,
            tolerance=tolerance,
            repeats=1 if target.deterministic else 2,
        )
        stage = f"{Stage.inflation.label} {name}"
        calls = _StoredScores(
            ctx, name, definition, lambda made: ctx.progress(stage, made, config.budget)
        )

        async def agent_reword(text: str) -> list[str]:
            """The agent LLM's rewordings; a failed call is stored as an error and the
            search goes on with the code's own rewordings."""
            try:
                return await reword(ctx.llm, ctx.config.model, text, seed=ctx.config.seed)
            except (LLMError, BudgetExceeded) as exc:
                ctx.store.put_error(Stage.inflation, name, f"rewording failed: {exc}", target=name)
                return []

        ctx.progress(stage, 0, config.budget)
        result = await search_exploits(  # a failed call is the search's to count (CallFailed)
            score, ctx.examples, ctx.spec.scored_field, ctx.spec.criterion, catalogue, config,
            reword=agent_reword, scores=calls,
        )  # fmt: skip
        result = result.model_copy(update={"target": name, "definition_sha256": definition})
        ctx.store.put_inflation(result)
        ctx.progress(stage, config.budget, config.budget)
        results[name] = result

    await run_all(Stage.inflation.label, list(ctx.targets.items()), one, _no_progress)
    return results


class _StoredScores(dict[str, float]):
    """A search's target calls, read from the suite and written back as each is made; kept
    under the target definition that made them, so a changed judge is never answered by the
    scores of the one it replaced."""

    def __init__(
        self,
        ctx: RunContext,
        target: str,
        definition: str | None,
        on_call: Callable[[int], None] = lambda made: None,
    ) -> None:
        self._prefix = f"{definition or ''}|"
        stored = ctx.store.inflation_scores(target)
        super().__init__(
            {
                k.removeprefix(self._prefix): v
                for k, v in stored.items()
                if k.startswith(self._prefix)
            }
        )
        self._ctx, self._target, self._on_call = ctx, target, on_call

    def __setitem__(self, key: str, value: float) -> None:
        super().__setitem__(key, value)
        self._ctx.store.put_inflation_score(self._target, self._prefix + key, value)
        self._on_call(len(self))


def _put_execution(ctx: RunContext, record: ExecutionRecord) -> None:
    """Store a result with the hash of the target definition that produced it."""
    definition = ctx.definitions.get(record.target)
    ctx.store.put_execution(record.model_copy(update={"definition_sha256": definition}))


async def write_report(ctx: RunContext) -> Report:
    """Store the report with the suite's revision and the code that built it, so readers
    (`sane report`, `sane check`) serve it again without building it while both hold."""
    revision = ctx.store.revision()
    report = build_report(ctx.store.snapshot())
    ctx.store.save_report(
        report.model_dump(mode="json"), revision=revision, code=code_fingerprint()
    )
    return report
