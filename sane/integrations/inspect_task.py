"""Run a sane suite against a judge model as an Inspect AI task (the `inspect` extra).

One Inspect sample is one validated case of the suite: a joint-valid case of a validated
family, the same cases `sane execute` scores and the report counts. The solver renders sane's
judge rubric for each variant the case's relation reads, asks the model Inspect is evaluating
once per variant (once per repeat for a `repeatable` relation) and reads each score with
sane's own parser; the scorer checks the relation with sane's own relation check, on scores
normalised as `sane execute` normalises them. A pass is CORRECT, a fault INCORRECT (so
`accuracy` is the pass rate); an unparseable reply, a score outside the output contract or a
relation that cannot be checked is an error of that sample, never a pass or a fault.

    inspect eval sane/integrations/inspect_task.py -T suite=my.db --model openai/gpt-4o-mini

Only this module imports inspect_ai; sane itself runs without the extra.
"""

# No `from __future__ import annotations`: `inspect eval FILE` runs this file as a module that
# is not in sys.modules, which is where dataclasses look string annotations up.
import dataclasses
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    get_model,
)
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Scorer, accuracy, scorer, stderr
from inspect_ai.scorer import Target as InspectTarget
from inspect_ai.solver import Generate, Solver, TaskState, solver

from sane.errors import InputError, ScorerError
from sane.export import validated_cases
from sane.records import (
    Case,
    Recipe,
    ScorerSpec,
    Stage,
    SuiteSnapshot,
    TargetConfig,
    Verdict,
    relation_roles,
)
from sane.scorers import BuildContext, build_target, score_variants
from sane.scorers.execute import repeats_of, variant_records, verdict_record
from sane.scorers.llm_judge import JudgeConfig, LLMJudge
from sane.suites.store import SuiteStore
from sane.target_kind import kind_of

DEFAULT_TOLERANCE = 0.05
"""Normalised units ([0, 1]); sane's tolerance floor, used when the suite stores none."""

DEFAULT_TIMEOUT_S = 600.0
"""Seconds one judge call may take unless the rubric target sets `timeout_s`. Generous:
Inspect's own retries and request timeouts govern the model call."""

DEFAULT_JUDGE = "inspect-judge"
"""The judge's name when no rubric target is chosen (it reads the shipped default rubric)."""

SCORES_KEY = "sane_scores"
"""Where the solver leaves a sample's raw scores (role -> repeats) in the Inspect store."""


class _InspectModel:
    """The slice of sane's LLM client a judge calls (`TextLLM.text`), answered by the model
    Inspect is evaluating (resolved per call, so one judge serves every sample)."""

    async def text(
        self,
        model: str,
        messages: list[dict[str, str]],
        *,
        task: str,
        sample_index: int = 0,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> str:
        config = GenerateConfig(temperature=temperature, max_tokens=max_tokens)
        output = await get_model().generate([_message(m) for m in messages], config=config)
        if output.error:
            raise ScorerError(f"model error: {output.error}")
        return output.completion

    def serial_key(self, model: str) -> str | None:
        return None  # Inspect schedules its own model calls


def _message(message: dict[str, str]) -> ChatMessage:
    kinds = {
        "system": ChatMessageSystem,
        "user": ChatMessageUser,
        "assistant": ChatMessageAssistant,
    }
    return kinds[message["role"]](content=message["content"])


@dataclass(frozen=True)
class SuiteRun:
    """What the task needs from a suite: its validated cases, the judge and the tolerance."""

    path: Path
    spec: ScorerSpec
    judge: LLMJudge
    tolerance: float
    timeout_s: float
    cases: dict[str, tuple[Recipe, Case]]


def _judge_config(snapshot: SuiteSnapshot, path: Path, rubric_target: str | None) -> TargetConfig:
    if rubric_target is None:
        # The shipped default rubric and the spec's output contract; the model is Inspect's.
        return JudgeConfig(name=DEFAULT_JUDGE, model="inspect")
    judges = {t.config.name: t.config for t in snapshot.targets if kind_of(t.config).judge}
    if rubric_target not in judges:
        held = ", ".join(judges) or "none"
        raise InputError(
            str(path),
            "rubric_target",
            f"unknown llm_judge target {rubric_target!r} (suite holds: {held})",
        )
    return judges[rubric_target]


def load_suite(
    suite: str | Path, rubric_target: str | None = None, tolerance: float | None = None
) -> SuiteRun:
    """Open a suite read-only and prepare its validated cases, judge and tolerance."""
    path = Path(suite)
    store = SuiteStore(path, readonly=True)
    try:
        if not store.is_done(Stage.families):
            raise InputError(
                str(path), None, "suite generation is not finished; rerun `sane generate`"
            )
        snapshot = store.snapshot()
    finally:
        store.close()
    config = _judge_config(snapshot, path, rubric_target)
    rubrics = {t.config.name: t.rubric for t in snapshot.targets if t.rubric}
    llm: Any = _InspectModel()  # a judge needs only `text` of an LLM client
    judge = build_target(config, BuildContext(spec=snapshot.spec, llm=llm, rubrics=rubrics))
    if not isinstance(judge, LLMJudge):
        raise InputError(str(path), "rubric_target", f"{config.name!r} is not an llm_judge")
    # Replies are read as text: the parser accepts the JSON object a `reply: json` judge gives.
    judge = dataclasses.replace(judge, reply="text")
    if tolerance is None:
        tolerance = snapshot.tolerances.get(config.name, DEFAULT_TOLERANCE)
    if isinstance(tolerance, bool) or not (
        isinstance(tolerance, int | float) and math.isfinite(tolerance) and tolerance >= 0
    ):
        raise InputError(str(path), "tolerance", f"must be a number >= 0, not {tolerance!r}")
    cases = validated_cases(snapshot)
    if not cases:
        raise InputError(str(path), None, "the suite holds no validated cases to run")
    return SuiteRun(
        path=path,
        spec=snapshot.spec,
        judge=judge,
        tolerance=float(tolerance),
        timeout_s=config.timeout_s or DEFAULT_TIMEOUT_S,
        cases={case.id: (recipe, case) for recipe, case in cases},
    )


def _sample(recipe: Recipe, case: Case) -> Sample:
    relation = recipe.relation
    return Sample(
        id=case.id,
        input=f"{recipe.name}: {recipe.instruction}",
        target=relation.kind,
        metadata={
            "case_id": case.id,
            "recipe_id": recipe.id,
            "capability_id": recipe.capability_id,
            "requirement": recipe.requirement.value,
            "relation": relation.model_dump(mode="json"),
            "variants": {role: case.variants.get(role) for role in relation_roles(relation)},
        },
    )


@solver
def judge_variants(suite: str, rubric_target: str | None = None) -> Solver:
    """Render the judge rubric for each variant the case's relation reads, call the model
    once per variant (and repeat), and keep the parsed raw scores in the sample store."""
    run = load_suite(suite, rubric_target)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        recipe, case = run.cases[str(state.sample_id)]
        if case.error:
            raise ScorerError(f"case {case.id} was not generated: {case.error}")
        records = variant_records(run.spec, case, relation_roles(recipe.relation))
        raw = await score_variants(run.judge, records, repeats_of(recipe, 1), run.timeout_s)
        state.store.set(SCORES_KEY, raw)
        return state

    return solve


@scorer(metrics=[accuracy(), stderr()])
def relation_holds(
    suite: str, rubric_target: str | None = None, tolerance: float | None = None
) -> Scorer:
    """Check the case's relation on its normalised scores: pass -> CORRECT, fault ->
    INCORRECT, and a relation that cannot be checked -> an error of the sample."""
    run = load_suite(suite, rubric_target, tolerance)

    async def score(state: TaskState, target: InspectTarget) -> Score:
        recipe, case = run.cases[str(state.sample_id)]
        raw = state.store.get(SCORES_KEY)
        if raw is None:
            raise ScorerError(f"case {case.id}: no judge scores (the solver did not run)")
        record = verdict_record(run.judge, run.spec, recipe, case, run.tolerance, raw)
        if record.verdict is Verdict.error:
            raise ScorerError(f"case {case.id}: {record.error}")
        shown = ", ".join(
            f"{role}={'/'.join(f'{v:g}' for v in values)}" for role, values in raw.items()
        )
        return Score(
            value=CORRECT if record.verdict is Verdict.passed else INCORRECT,
            answer=shown,
            explanation=record.detail,
            metadata={
                "verdict": record.verdict.value,
                "relation": recipe.relation.kind,
                "scores": record.scores,
                "normalised": record.normalised,
                "tolerance": record.tolerance,
                "judge": record.target,
            },
        )

    return score


@task
def sane_suite(
    suite: str, rubric_target: str | None = None, tolerance: float | None = None
) -> Task:
    """A sane suite's validated cases as samples, judged by the evaluated model.

    Args:
        suite: Path of the suite file (`sane generate --suite`).
        rubric_target: Name of one of the suite's llm_judge targets whose rubric (and output
            contract and temperature) the judge uses; default: sane's shipped rubric.
        tolerance: Noise tolerance in normalised units ([0, 1]); default: the tolerance the
            suite stores for `rubric_target`, else 0.05.
    """
    run = load_suite(suite, rubric_target, tolerance)
    return Task(
        dataset=[_sample(*run.cases[case_id]) for case_id in run.cases],
        solver=judge_variants(suite, rubric_target),
        scorer=relation_holds(suite, rubric_target, tolerance),
        # an errored sample is recorded and the others still run; the eval fails at the
        # end if any errored (override with --fail-on-error / fail_on_error)
        continue_on_fail=True,
        metadata={
            "suite": str(run.path),
            "scorer": run.spec.name,
            "judge": run.judge.name,
            "tolerance": run.tolerance,
        },
    )
