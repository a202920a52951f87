"""The score-inflation search as a stage of the execute graph (sane.manipulations does the
search): its target calls stored as they are made, so an interrupted search resumes.
"""

from __future__ import annotations

from collections.abc import Callable

from sane.agents.rewording import reword
from sane.errors import BudgetExceeded, LLMError, SaneError, ScorerError
from sane.manipulations import (
    CallFailed,
    SearchConfig,
    SearchResult,
    load_catalogue,
    search_exploits,
)
from sane.pipeline._runtime import RunContext, no_progress, run_all
from sane.pipeline.execution import TOLERANCE_SAMPLE, ToleranceSample, timeout_of, tolerance_of
from sane.records import Stage
from sane.scorers.base import Target
from sane.scorers.execute import normalise, score_variants
from sane.target_kind import is_control


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
    sample = ToleranceSample.from_examples(ctx.examples[:TOLERANCE_SAMPLE], ctx.examples)

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
            tolerance = await tolerance_of(ctx, name, target, sample)
        except SaneError as exc:  # no tolerance, no relation to check: an error, not a verdict
            ctx.store.put_error(Stage.inflation, name, str(exc), target=name)
            results[name] = SearchResult(
                target=name, definition_sha256=definition, tolerance=0.0, calls=0,
                budget=budget, candidates=0, error=f"tolerance could not be measured: {exc}",
            )  # fmt: skip
            ctx.store.put_inflation(results[name])
            return
        spec, timeout_s = ctx.spec.output, timeout_of(ctx, name)

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

    # the planted null scorers are controls of the ranking, not candidates to search
    planted = {t.config.name for t in ctx.store.targets() if is_control(t.config)}
    searched = [(name, target) for name, target in ctx.targets.items() if name not in planted]
    await run_all(Stage.inflation.label, searched, one, no_progress)
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
