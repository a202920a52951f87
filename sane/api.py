"""The Python API: the CLI's operations as functions that return the records.

Each call opens the suite, builds a fresh run context (LLM client, panel,
targets) and runs the workflow graph in the mode asked for.
"""

from __future__ import annotations

import asyncio
import dataclasses
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sane.errors import InputError
from sane.records import (
    ExecuteConfig,
    ExecutionRecord,
    RunConfig,
    Stage,
    SuiteSnapshot,
    Verdict,
)
from sane.relations import tolerance_for
from sane.reporting import Report, code_fingerprint
from sane.suites.store import SuiteStore, read_stored_report

if TYPE_CHECKING:
    from sane.llm import LLMClient, LLMSettings
    from sane.pipeline import Progress, RunContext
    from sane.qualification_record import Qualification
    from sane.reporting import LiveOptions
    from sane.scorers.base import Target
    from sane.scorers.suite_targets import CodeTrust

# `report` reads a suite and must start fast (CI gates, terminals); the pipeline behind
# `generate` and `execute` (LangGraph, the agents, the panel, the targets) loads in them.


def _context(
    store: SuiteStore, llm: LLMClient, progress: Progress | None, **extra: object
) -> RunContext:
    from sane.panel.oracle import OraclePanel
    from sane.pipeline import RunContext, no_progress

    config = store.config()
    panel = OraclePanel(
        llm,
        config.oracle_models,
        config.votes,
        config.oracle_temperature,
        seed=config.seed,
        sequential=not config.exhaustive,
        rationale=config.vote_rationale,
    )
    return RunContext(
        store=store,
        llm=llm,
        spec=store.spec(),
        config=config,
        examples=store.examples(),
        panel=panel,
        progress=progress or no_progress,
        **extra,  # type: ignore[arg-type]
    )


def generate(
    spec: str | Path,
    *,
    suite: str | Path,
    config: RunConfig | None = None,
    examples: str | Path | None = None,
    llm: LLMSettings | None = None,
    progress: Progress | None = None,
    qualify: bool = False,
    **options: Any,
) -> SuiteSnapshot:
    """Generate (or resume generating) a validated suite for a scorer spec.

    ``qualify=True`` first qualifies each oracle model (`sane qualify`'s quick run, with the
    run's sampling; cached) and stores the result in the suite, whose every report then
    begins with it; a model the suite already holds a qualification for is not asked again.
    `sane generate` does this unless `--skip-qualify`; here it is asked for, because scripts
    and benchmarks call `generate` in loops over one model. Without it the reports say the
    oracle was never qualified.

    The run is described by ``config`` (a `RunConfig`, built and checked by
    :func:`sane.pipeline.run_config.run_config`) or, equivalently, by its fields as keywords
    (``model=``, ``oracle_models=``, ``votes=``, ``cases=``, ``tau=``, ``seed=``,
    ``max_capabilities=``, ``recipes_per_capability=``, ``generator=``, ``exhaustive=``,
    ``stop_at_tau=``, ``panel=``).

    ``generator`` picks where capabilities and recipes come from: ``derived`` (the
    agents) or ``fixed:NAME`` (a fixed recipe set, see :mod:`sane.generators`).

    Decisions are sequential by default: the panel stops asking once a majority is
    certain and a family stops generating cases once it cannot reach tau, with the
    same outcomes as ``exhaustive=True`` for fewer calls. ``stop_at_tau`` (budget
    mode) also stops a family once it has tau joint-valid cases.

    ``panel="contrastive"`` (default) aligns a recipe only when the panel also rejects
    its mirror; ``"plain"`` lets the recipe's own majority decide; ``"blind"`` is
    contrastive and asks a pair relation's direction without showing it (lower, higher
    or same, checked by code, each vote asked both ways round). Whatever the panel, the
    suite's planted controls measure it (report: ``validity.controls``).
    """
    from sane.inputs import examples_path, load_examples, load_spec
    from sane.llm import LLMSettings, require_prices
    from sane.pipeline.run_config import check_models, run_config, with_run_inputs
    from sane.scorers.suite_targets import freeze_targets

    if config is None:
        config = run_config(**options)
    elif options:
        raise TypeError(f"generate takes a config or its fields, not both: {sorted(options)}")
    scorer, spec_path = load_spec(spec)
    rows_path = examples_path(scorer, spec_path, examples)
    rows = load_examples(scorer, rows_path)
    targets = freeze_targets(scorer, spec_path.parent, str(spec), example=rows[0])
    check_models(config, llm or LLMSettings())
    config = with_run_inputs(config, spec_path, rows_path)
    require_prices([config.model, *config.oracle_models], llm, "agent and oracle models")
    store = SuiteStore(suite, create=True, writer=True)
    try:
        store.initialise(scorer, config, rows)
        store.put_targets(targets)
        return _run_generation(store, config, llm, progress, qualify)
    finally:
        store.close()


def _run_generation(
    store: SuiteStore,
    config: RunConfig,
    llm: LLMSettings | None,
    progress: Progress | None,
    qualify: bool,
) -> SuiteSnapshot:
    """The generation stages on an opened suite, its oracle qualified first if asked."""
    if qualify:
        _qualify_oracles(store, config, llm, progress)
    from sane.pipeline import workflow  # langgraph: imported once the inputs are known good

    client = _client(store, llm)
    asyncio.run(workflow.run(_context(store, client, progress), "generate"))
    return store.snapshot()


def resume(
    suite: str | Path,
    *,
    llm: LLMSettings | None = None,
    progress: Progress | None = None,
    qualify: bool = False,
) -> SuiteSnapshot:
    """Resume or re-decide a suite's generation from what the suite itself stores (its spec,
    examples and configuration), so no spec file or option is typed again: after an
    interruption, a budget stop, or a review (`sane review apply`, the review page) that
    reopened the stages writing the cases of recipes a person aligned. A suite not yet
    started from a spec is bad input. ``qualify`` as in `generate`."""
    from sane.llm import LLMSettings, require_prices
    from sane.pipeline.run_config import check_models

    if not Path(suite).is_file():
        raise InputError(str(suite), None, "no such suite: give the spec to start one")
    store = SuiteStore(suite, writer=True)
    try:
        config = store.config()
        check_models(config, llm or LLMSettings())
        require_prices([config.model, *config.oracle_models], llm, "agent and oracle models")
        return _run_generation(store, config, llm, progress, qualify)
    finally:
        store.close()


def _qualify_oracles(
    store: SuiteStore, config: RunConfig, llm: LLMSettings | None, progress: Progress | None
) -> None:
    """Qualify every oracle model of the panel the suite holds no qualification for. Its
    calls are cached but kept out of the suite's call log (they are not the suite's panel)."""
    from sane.llm import LLMClient, LLMSettings
    from sane.qualification.qualify import qualify as run_qualification
    from sane.qualification.recorded import recorded_qualification
    from sane.qualification.tracking import CallProgress, expected_calls, qualification_config

    done = {q.model for q in store.qualifications()}
    todo = [model for model in dict.fromkeys(config.oracle_models) if model not in done]
    config = qualification_config(config)  # one seed: every suite replays the same calls
    for model in list(todo):
        recorded = recorded_qualification(model, config)  # an embedded model's known verdict
        if recorded is not None:
            store.put_qualification(recorded)
            todo.remove(model)
    if not todo:
        return
    counted = CallProgress(progress)
    client = LLMClient(llm or LLMSettings(), on_call=counted)
    try:
        for model in todo:
            counted.start(f"qualify {model}", expected_calls(model, quick=True))
            qualification = asyncio.run(run_qualification(client, model, config=config))
            store.put_qualification(qualification)
            counted.finish()
    finally:
        client.close()


def qualify(
    oracle_model: str,
    *,
    quick: bool = False,
    config: RunConfig | None = None,
    llm: LLMSettings | None = None,
    progress: Progress | None = None,
    recorded: bool = True,
) -> Qualification:
    """An oracle model's skill on exact ground truth, and the panels it qualifies for
    (sane.qualification.qualify). Its calls are cached like any other, so asking again
    replays them; `config` gives the panel's sampling (temperature, seed, rationale);
    `progress` is told of every call as it finishes. `recorded`: an embedded model's recorded
    quick verdict is returned, labelled, when its model file and the questions still match
    (sane.qualification.recorded); False asks the model."""
    from sane.llm import LLMClient, LLMSettings, check_model
    from sane.qualification.qualify import qualify as run_qualification
    from sane.qualification.recorded import recorded_qualification
    from sane.qualification.tracking import QUALIFY_SEED, CallProgress, expected_calls

    check_model(oracle_model, "--oracle-model")
    if recorded and quick:
        asked = config or RunConfig(model=oracle_model, oracle_models=[oracle_model])
        known = recorded_qualification(oracle_model, asked)
        if known is not None:
            return known
    counted = CallProgress(progress)
    client = LLMClient(llm or LLMSettings(), on_call=counted)
    seed = config.seed if config is not None else QUALIFY_SEED
    counted.start(f"qualify {oracle_model}", expected_calls(oracle_model, quick, seed))

    async def qualified() -> Qualification:
        try:
            return await run_qualification(client, oracle_model, quick=quick, config=config)
        finally:
            await client.aclose()  # the loop's HTTP connections, before the loop ends

    try:
        result = asyncio.run(qualified())
        counted.finish()
        return result
    finally:
        client.close()


def build_targets(
    store: SuiteStore, llm: LLMClient, names: list[str] | None, trust: CodeTrust
) -> tuple[dict[str, Target], list[str]]:
    """Build the suite's targets (or the named ones) from the definitions it holds, and name
    the code targets that `trust` does not let this run import (sane.scorers.suite_targets)."""
    from sane.scorers import BuildContext, build_target
    from sane.scorers.suite_targets import runnable

    held = {t.config.name: t for t in store.targets()}
    unknown = [n for n in names or [] if n not in held]
    if unknown:
        raise InputError(
            str(store.path),
            "--target",
            f"unknown target {unknown[0]!r} (suite holds: {', '.join(held) or 'none'})",
        )
    chosen, not_run = runnable([held[n] for n in names or list(held)], trust, str(store.path))
    context = BuildContext(
        spec=store.spec(), llm=llm, rubrics={t.config.name: t.rubric for t in chosen if t.rubric}
    )
    return {t.config.name: build_target(t.config, context) for t in chosen}, not_run


def add_targets(store: SuiteStore, spec: str | Path) -> list[str]:
    """Add or replace the suite's targets with those of another spec of the same scorer;
    returns the names that spec declares (this run has chosen their code)."""
    from sane.inputs import load_spec
    from sane.scorers.suite_targets import freeze_targets, same_scorer

    other, path = load_spec(spec)
    same_scorer(store.spec(), other, str(path))
    targets = freeze_targets(
        other, path.parent, str(spec), example=next(iter(store.examples()), None)
    )
    store.put_targets(targets)
    return [t.config.name for t in targets]


def _require_frozen_targets(store: SuiteStore, spec: str | Path | None) -> None:
    """A suite written before targets were frozen into it holds only its spec's target list,
    whose rubric paths name files on the machine that reads them (an absolute path, or one
    under the folder the suite records). Freezing them from there would let a received suite
    copy any local file into itself and every judge prompt, so such a suite runs only with a
    spec given on this run, which freezes its targets afresh."""
    if spec is None and not store.targets():
        raise InputError(
            str(store.path),
            "--spec",
            "the suite holds no frozen targets (a suite from before targets were stored in "
            "it, or one generated without any); give the spec whose targets to run with "
            "--spec SPEC",
        )


def _say(message: str) -> None:
    warnings.warn(message, stacklevel=3)


def execute(
    suite: str | Path,
    *,
    config: ExecuteConfig | None = None,
    spec: str | Path | None = None,
    llm: LLMSettings | None = None,
    progress: Progress | None = None,
    trust_suite_code: bool = False,
    notice: Callable[[str], None] = _say,
    **options: Any,
) -> Executions:
    """Run a generated suite's validated families against its targets (or the named ones).

    The execution is described by ``config`` (an `ExecuteConfig`, built and checked by
    :func:`sane.pipeline.run_config.execute_config`) or, equivalently, by its fields as keywords
    (``targets=``, ``repeats=``, ``timeout_s=``, ``tolerance_floor=``, ``max_target_calls=``,
    ``comparison_examples=``: a comparative suite's audit, sane.pipeline.comparison).

    ``spec`` first adds or replaces targets from another spec of the same scorer, so judge
    versions are compared on one suite over time; a replaced definition is measured again.

    A python target runs only when ``spec`` declares it or ``trust_suite_code`` is true (and
    then only if its module file is the one the suite recorded); any other is not imported,
    and ``notice`` is told its name (default: a warning).

    The null scorers (sane.scorers.null_scorers: a constant, seeded noise, a length count)
    are planted among the suite's targets and run every time, whatever targets are named:
    reports place the ranking against them and never rank them as candidates.
    """
    from sane.llm import require_prices
    from sane.pipeline import workflow
    from sane.pipeline.run_config import execute_config
    from sane.scorers.null_scorers import plant
    from sane.scorers.suite_targets import NOT_RUN, CodeTrust
    from sane.target_kind import is_control

    if config is None:
        config = execute_config(**options)
    elif options:
        raise TypeError(f"execute takes a config or its fields, not both: {sorted(options)}")

    store = SuiteStore(suite, writer=True)
    try:
        if not store.is_done(Stage.families):
            raise InputError(
                str(store.path),
                None,
                "suite generation is not finished; rerun `sane generate` to resume it",
            )
        _require_frozen_targets(store, spec)
        trust = CodeTrust(suite_code=trust_suite_code)
        if spec is not None:
            trust = dataclasses.replace(trust, declared=frozenset(add_targets(store, spec)))
        client = _client(store, llm)
        chosen, not_run = build_targets(store, client, config.targets, trust)
        for name in not_run:
            notice(f"{name}: {NOT_RUN} (give its spec with --spec, or --trust-suite-code)")
        planted_before = {t.config.name for t in store.targets() if is_control(t.config)}
        if not_run and not set(chosen) - planted_before:  # only planted controls left
            raise InputError(
                str(store.path),
                "--trust-suite-code",
                f"nothing to run: every chosen target ({', '.join(not_run)}) is a python target "
                "stored in the suite, whose code runs only when you choose it: give its spec "
                "with --spec SPEC, or --trust-suite-code",
            )
        called = [m for t in store.spec().targets if t.name in chosen for m in t.models()]
        require_prices(called, llm, "judge targets")
        # the null scorers run beside the user's targets, always (planted once the run is
        # known to go ahead, so a refused run leaves the suite as it was)
        planted = plant(store)
        missing = [name for name in planted if name not in chosen]
        if missing:
            chosen |= build_targets(store, client, missing, trust)[0]
        before = {_made_by(e) for e in store.executions()}
        _under_this_bar(store, chosen, config, notice)
        context = _context(
            store,
            client,
            progress,
            targets=chosen,
            definitions={t.config.name: t.definition_sha256 for t in store.targets()},
            execution=config,
        )
        asyncio.run(workflow.run(context, "execute"))
        # the user's targets' results: the planted controls are stored, and reported apart
        results = [e for e in store.executions() if e.target in chosen and e.target not in planted]
        return Executions(results, new=[e for e in results if _made_by(e) not in before])
    finally:
        store.close()


def _under_this_bar(
    store: SuiteStore,
    chosen: Mapping[str, object],
    config: ExecuteConfig,
    notice: Callable[[str], None],
) -> None:
    """A chosen target whose tolerance was set under another `--tolerance-floor` or
    `--tolerance-spread` is checked again under this run's: its verdicts were checked
    against a bar this run was not asked for, and keeping them would report the old bar's
    results as this run's. Its stored noise and spread give the new tolerance and every
    stored result is checked again from its normalised scores, with no call
    (`ExecutionRecord.checked_under`: the verdicts a run under the new bar gives). A suite
    executed before the spread was measured stored none: such a target runs again (a
    judge's calls come back from the cache)."""
    wanted = (config.tolerance_floor, config.tolerance_spread)
    other = {
        name: stored
        for name, stored in store.tolerances().items()
        if name in chosen and stored.get("floor") is not None and _bar_of(stored) != wanted
    }
    if not other:
        return
    higher = store.spec().output.higher_is_better
    recipes = {r.id: r for r in store.recipes()}
    for name, stored in other.items():
        previous = _bar_of(stored)
        was = f"{name}: its results were checked with tolerance floor {previous[0]:g} and "
        was += f"spread share {previous[1]:g}"
        if "spread" not in stored:
            notice(f"{was}; run again with {wanted[0]:g} and {wanted[1]:g}")
            store.forget_results(name)
            continue
        noise, spread = float(stored["noise_std"]), float(stored["spread"])
        tolerance = tolerance_for(noise, wanted[0], spread, wanted[1])
        results = [
            record.checked_under(recipes[record.recipe_id].relation, tolerance, higher)
            for record in store.executions(name)
            if record.verdict is not Verdict.error and record.recipe_id in recipes
        ]
        bar = {"tolerance": tolerance, "floor": wanted[0], "spread_share": wanted[1]}
        store.checked_again(name, results, stored | bar)
        notice(f"{was}; checked again from its stored scores with {wanted[0]:g} and "
               f"{wanted[1]:g} (no call)")  # fmt: skip


def _bar_of(estimate: dict[str, Any]) -> tuple[float, float]:
    """The (floor, spread share) a stored tolerance estimate was set under (no share before
    the spread counted)."""
    return float(estimate["floor"]), float(estimate.get("spread_share", 0.0))


class Executions(list[ExecutionRecord]):
    """The chosen targets' results in the suite after a run, and `new`: those this run
    made (a result kept from an earlier run of the same definition is not new), so a
    summary can say what this run did before the totals."""

    def __init__(self, results: list[ExecutionRecord], new: list[ExecutionRecord]) -> None:
        super().__init__(results)
        self.new = new


def _made_by(e: ExecutionRecord) -> tuple[str, str, str | None, str, float | None]:
    """What makes a result this run's when it differs: a result checked again under another
    tolerance is this run's, as one run again is."""
    return (e.target, e.case_id, e.definition_sha256, e.verdict.value, e.tolerance)


def build_report(snapshot: SuiteSnapshot, **options: Any) -> Report:
    """The report built afresh from a snapshot (the statistics load here, not on import)."""
    from sane.reporting import build_report as build

    return build(snapshot, **options)


def report(suite: str | Path, *, human: Mapping[str, float] | None = None) -> Report:
    """The report of a suite from what its store holds now: the one stored at the end of its
    last run when nothing has changed since and this code built it, else built afresh."""
    stored = read_stored_report(suite, code_fingerprint()) if human is None else None
    if stored is not None:
        return Report.model_validate(stored)
    store = SuiteStore(suite, readonly=True)
    try:
        return build_report(store.snapshot(), human=human)
    finally:
        store.close()


def report_html(
    suite: str | Path,
    *,
    human: Mapping[str, float] | None = None,
    live: LiveOptions | None = None,
) -> str:
    """The suite's report as one HTML page, from what its store holds now; the page also
    shows each fault's recipe text and each capability's name."""
    from sane.reporting import render_html

    store = SuiteStore(suite, readonly=True)
    try:
        snapshot = store.snapshot()
    finally:
        store.close()
    return render_html(
        build_report(snapshot, human=human),
        recipes=snapshot.recipes,
        capabilities=snapshot.capabilities,
        live=live,
    )


def _client(store: SuiteStore, settings: LLMSettings | None) -> LLMClient:
    from sane.llm import LLMClient, LLMSettings

    return LLMClient(
        settings or LLMSettings(), on_call=store.put_call, on_transcript=store.put_transcript
    )
