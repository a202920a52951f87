"""`sane generate` and `sane execute`: build a suite, then run it against targets."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sane.cli._common import (
    EXIT_NOTHING_MEASURED,
    Quiet,
    app,
    err,
    errors_to_exit_codes,
    fail,
    out,
    print_validity,
    progress_display,
)
from sane.cli._llm_options import llm_options
from sane.llm import LLMSettings


@app.command()
@llm_options()
def generate(
    spec: Annotated[str, typer.Argument(help="Scorer spec YAML, or builtin:NAME.")],
    suite: Annotated[Path, typer.Option(help="Suite file to create or resume.")],
    model: Annotated[str, typer.Option(help="Agent model: a litellm string or local/NAME.")],
    oracle_model: Annotated[
        list[str] | None,
        typer.Option(metavar="MODEL", help="Oracle panel model(s); repeat for a panel."),
    ] = None,
    votes: Annotated[int, typer.Option(min=1, help="Oracle votes per decision.")] = 3,
    cases: Annotated[int, typer.Option(min=1, help="Cases per aligned recipe.")] = 10,
    tau: Annotated[int | None, typer.Option(help="Joint-valid cases a family needs.")] = None,
    examples: Annotated[Path | None, typer.Option(help="Examples JSONL (overrides spec).")] = None,
    seed: Annotated[int, typer.Option(help="Generation seed.")] = 0,
    capabilities: Annotated[int, typer.Option(min=1, help="Most capabilities to derive.")] = 6,
    recipes: Annotated[int, typer.Option(min=1, help="Most recipes per capability.")] = 2,
    generator: Annotated[
        str,
        typer.Option(help="Recipe source: derived (default) or fixed:NAME (jrh, behavioral, ...)."),
    ] = "derived",
    exhaustive: Annotated[
        bool,
        typer.Option(
            help="Ask every vote and generate every case (same suite as the default "
            "sequential decisions, more calls)."
        ),
    ] = False,
    stop_at_tau: Annotated[
        bool,
        typer.Option(help="Budget mode: stop a family once it has tau joint-valid cases."),
    ] = False,
    panel: Annotated[
        str,
        typer.Option(
            help="contrastive (default): a recipe is aligned only if its mirror is rejected; "
            "plain: the recipe's own majority decides; blind: contrastive, and a pair "
            "relation's direction is asked without being shown (lower/higher/same)."
        ),
    ] = "contrastive",
    llm: LLMSettings | None = None,  # from the LLM options (sane.cli._llm_options)
    quiet: Quiet = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the estimated calls and cost; run nothing.")
    ] = False,
) -> None:
    """Derive, validate and store a scorer-specific test suite."""
    from sane import api
    from sane.estimate import estimate_inputs, render_estimate
    from sane.report import build_report

    if dry_run:
        with errors_to_exit_codes():
            plan = estimate_inputs(
                spec,
                model=model,
                oracle_models=oracle_model,
                examples=str(examples) if examples else None,
                votes=votes,
                cases=cases,
                max_capabilities=capabilities,
                recipes_per_capability=recipes,
                generator=generator,
                panel=panel,
            )
        out.print(render_estimate(plan), markup=False, highlight=False, soft_wrap=True)
        return
    with errors_to_exit_codes(), progress_display(not quiet) as progress:
        snapshot = api.generate(
            spec,
            suite=suite,
            model=model,
            oracle_models=oracle_model,
            votes=votes,
            cases=cases,
            tau=tau,
            examples=examples,
            seed=seed,
            max_capabilities=capabilities,
            recipes_per_capability=recipes,
            generator=generator,
            exhaustive=exhaustive,
            stop_at_tau=stop_at_tau,
            panel=panel,
            llm=llm,
            progress=progress,
        )
    funnel = build_report(snapshot).validity
    print_validity(funnel)
    err.print(
        f"suite {suite}: {funnel.candidate_recipes} candidate recipes, "
        f"{funnel.aligned_recipes} aligned, {funnel.validated_families} validated families"
    )


@app.command()
@llm_options()
def execute(
    suite: Annotated[Path, typer.Argument(help="Suite file.")],
    target: Annotated[
        list[str] | None, typer.Option(metavar="NAME", help="Target name(s); default all.")
    ] = None,
    spec: Annotated[
        str | None,
        typer.Option(
            help="Add or replace targets from another spec of the same scorer (same name, "
            "criterion and fields) before running."
        ),
    ] = None,
    repeats: Annotated[int, typer.Option(min=1, help="Scores per variant.")] = 1,
    timeout: Annotated[float, typer.Option(help="Seconds per scorer call.")] = 60.0,
    llm: LLMSettings | None = None,  # from the LLM options (sane.cli._llm_options)
    quiet: Quiet = False,
) -> None:
    """Run the suite's validated families against target scorers."""
    from sane import api

    with errors_to_exit_codes(), progress_display(not quiet) as progress:
        records = api.execute(
            suite,
            targets=target,
            spec=spec,
            repeats=repeats,
            timeout_s=timeout,
            llm=llm,
            progress=progress,
        )
    faults = sum(r.verdict.value == "fault" for r in records)
    errors = sum(r.verdict.value == "error" for r in records)
    err.print(f"{len(records)} case executions: {faults} faults, {errors} errors")
    failed = sorted(
        {r.target for r in records} - {r.target for r in records if r.verdict.value != "error"}
    )
    if failed:
        first = next((r.error for r in records if r.target == failed[0] and r.error), "")
        raise fail(
            EXIT_NOTHING_MEASURED,
            f"error: target {failed[0]} errored on every case ({len(failed)} target(s) "
            f"without a result: {', '.join(failed)}); first error: {first}",
        )
