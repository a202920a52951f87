"""The execute graph's stages: every target on every joint-valid case of every validated
family (batched where a target scores many at once), then the report stored with the suite.

Executions that ended in an error are tried again on a rerun; passes and faults are final.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from sane.errors import BudgetExceeded, SaneError
from sane.pipeline._runtime import RunContext, no_progress, run_all
from sane.records import Case, Example, ExecutionRecord, Question, Recipe, Stage, Verdict
from sane.reporting import Report, build_report, code_fingerprint
from sane.scorers.base import Target
from sane.scorers.execute import batchable, estimate_tolerance, run_case, run_case_batch
from sane.validators.families import executable_cases

TOLERANCE_SAMPLE = 5
SPREAD_SAMPLE = 50


@dataclass(frozen=True)
class ToleranceSample:
    """The records a target's tolerance is measured on (`estimate_tolerance`). A noisy
    target is scored three times on each of a few (`noisy`: its calls cost, and its noise
    sets its tolerance); a deterministic one once on each of up to SPREAD_SAMPLE distinct
    examples (`deterministic`), since its tolerance is a share of its spread of scores, which
    five examples estimate poorly (on the politeness benchmark 5 or 6 examples moved the
    ranking's Spearman with people from +0.90 to +0.81), and code costs no call."""

    noisy: list[Example]
    deterministic: list[Example]

    def of(self, target: Target) -> list[Example]:
        return self.deterministic if target.deterministic else self.noisy

    @classmethod
    def from_examples(cls, noisy: list[Example], pool: list[Example]) -> ToleranceSample:
        """`noisy` as given; the first SPREAD_SAMPLE distinct records of `pool`."""
        distinct: dict[str, Example] = {}
        for example in pool:
            distinct.setdefault(json.dumps(example, sort_keys=True), example)
        return cls(noisy, list(distinct.values())[:SPREAD_SAMPLE] or noisy)


BATCH_CASES = 64  # cases per score_batch call of a batch-capable target


def _executable_cases(ctx: RunContext) -> list[tuple[Recipe, Case]]:
    store = ctx.store
    return executable_cases(
        store.recipes(),
        store.cases(),
        store.families(),
        store.decisions(Question.realization),
        store.decisions(Question.applicability),
    )


def timeout_of(ctx: RunContext, name: str) -> float:
    """A target's own `timeout_s` from the spec, else the run's `--timeout`."""
    own = next((t.timeout_s for t in ctx.spec.targets if t.name == name), None)
    return own if own is not None else ctx.execution.timeout_s


async def tolerance_of(
    ctx: RunContext, name: str, target: Target, sample: ToleranceSample
) -> float:
    """The target's stored tolerance, or a fresh estimate from its repeat-run noise and its
    spread of scores over the sample's records for it."""
    stored = ctx.store.tolerances().get(name)
    if stored is not None:
        return float(stored["tolerance"])
    ctx.progress(f"{Stage.tolerance.label} {name}", 0, 1)
    estimate = await estimate_tolerance(
        target,
        sample.of(target),
        ctx.spec.output,
        floor=ctx.execution.tolerance_floor,
        spread_share=ctx.execution.tolerance_spread,
        timeout_s=timeout_of(ctx, name),
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
    noisy = [case.example for _, case in pairs[:TOLERANCE_SAMPLE]] or ctx.examples[
        :TOLERANCE_SAMPLE
    ]
    sample = ToleranceSample.from_examples(noisy, [case.example for _, case in pairs])
    ctx.store.clear_errors(Stage.tolerance)

    ran: dict[str, int] = {}

    async def one_target(item: tuple[str, Target]) -> None:
        name, target = item
        todo = [(recipe, case) for recipe, case in pairs if (name, case.id) not in settled]
        if todo:
            await _execute_target(ctx, name, target, todo, sample)
        ran[name] = len(todo)

    await run_all(Stage.execute.label, list(ctx.targets.items()), one_target, no_progress)
    return ran


async def _execute_target(
    ctx: RunContext,
    name: str,
    target: Target,
    todo: list[tuple[Recipe, Case]],
    sample: ToleranceSample,
) -> None:
    try:
        tolerance = await tolerance_of(ctx, name, target, sample)
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
        repeats, timeout_s = ctx.execution.repeats, timeout_of(ctx, name)
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
