"""The `sane` command line: thin wrappers over the Python API, with progress and exit codes.

Exit codes: 0 success; 1 a run failed (a stage could not continue); 2 bad input
(one line on stderr naming the file, field and problem); 3 stopped at a budget
(the suite is resumable).
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from sane import api
from sane.errors import BudgetExceeded, InputError, SaneError
from sane.llm import LLMSettings
from sane.report import render_markdown

app = typer.Typer(
    name="sane",
    help="Scorer-specific metamorphic testing for LLM judges and text metrics.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
err = Console(stderr=True)
out = Console()

EXIT_FAILED, EXIT_BAD_INPUT, EXIT_BUDGET = 1, 2, 3


def _fail(code: int, message: str) -> typer.Exit:
    err.print(f"sane: {message}", markup=False, highlight=False, soft_wrap=True)
    return typer.Exit(code)


@contextmanager
def _errors_to_exit_codes() -> Iterator[None]:
    try:
        yield
    except InputError as exc:
        raise _fail(EXIT_BAD_INPUT, f"error: {exc}") from None
    except BudgetExceeded as exc:
        raise _fail(EXIT_BUDGET, f"stopped at budget: {exc}; rerun the same command to resume")
    except SaneError as exc:
        raise _fail(EXIT_FAILED, f"failed: {exc}") from None


@contextmanager
def _progress(enabled: bool) -> Iterator[Callable[[str, int, int], None]]:
    """A rich progress bar per stage, on stderr so stdout stays machine-readable."""
    if not enabled:
        yield lambda stage, done, total: None
        return
    columns = (TextColumn("{task.description:<22}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())
    with Progress(*columns, console=err, transient=False) as bar:
        tasks: dict[str, Any] = {}

        def update(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=max(total, 1))
            bar.update(tasks[stage], completed=done if total else 1, total=max(total, 1))

        yield update


Cache = Annotated[Path | None, typer.Option(help="LLM cache file (default: user cache dir).")]
Script = Annotated[
    Path | None, typer.Option(help="Rules file for the `scripted` model (tests, docs).")
]
ApiBase = Annotated[str | None, typer.Option(help="Base URL of an OpenAI-compatible server.")]
Concurrency = Annotated[int, typer.Option(min=1, help="Concurrent LLM calls.")]
MaxCalls = Annotated[int | None, typer.Option(help="Stop after this many uncached LLM calls.")]
MaxCost = Annotated[float | None, typer.Option(help="Stop once this many USD are spent.")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress display.")]


def _settings(cache: Path | None, script: Path | None, api_base: str | None, concurrency: int,
              max_calls: int | None, max_cost: float | None) -> LLMSettings:
    if script is not None and not script.is_file():
        raise InputError(str(script), "--script", "file not found")
    return LLMSettings(cache_path=cache, script_path=script, api_base=api_base,
                       concurrency=concurrency, max_calls=max_calls, max_cost=max_cost)


@app.command()
def generate(
    spec: Annotated[str, typer.Argument(help="Scorer spec YAML, or builtin:NAME.")],
    suite: Annotated[Path, typer.Option(help="Suite file to create or resume.")],
    model: Annotated[str, typer.Option(help="Agent model: a litellm string or local/NAME.")],
    oracle_model: Annotated[
        list[str] | None, typer.Option(help="Oracle panel model(s); repeat for a panel.")
    ] = None,
    votes: Annotated[int, typer.Option(min=1, help="Oracle votes per decision.")] = 3,
    cases: Annotated[int, typer.Option(min=1, help="Cases per aligned recipe.")] = 10,
    tau: Annotated[int | None, typer.Option(help="Joint-valid cases a family needs.")] = None,
    examples: Annotated[Path | None, typer.Option(help="Examples JSONL (overrides spec).")] = None,
    seed: Annotated[int, typer.Option(help="Generation seed.")] = 0,
    capabilities: Annotated[int, typer.Option(min=1, help="Most capabilities to derive.")] = 6,
    recipes: Annotated[int, typer.Option(min=1, help="Most recipes per capability.")] = 2,
    cache: Cache = None,
    script: Script = None,
    api_base: ApiBase = None,
    concurrency: Concurrency = 8,
    max_calls: MaxCalls = None,
    max_cost: MaxCost = None,
    quiet: Quiet = False,
) -> None:
    """Derive, validate and store a scorer-specific test suite."""
    with _errors_to_exit_codes(), _progress(not quiet) as progress:
        snapshot = api.generate(
            spec, suite=suite, model=model, oracle_models=oracle_model, votes=votes,
            cases=cases, tau=tau, examples=examples, seed=seed, max_capabilities=capabilities,
            recipes_per_capability=recipes,
            llm=_settings(cache, script, api_base, concurrency, max_calls, max_cost),
            progress=progress,
        )
    validated = sum(f.validated for f in snapshot.families)
    err.print(f"suite {suite}: {len(snapshot.recipes)} candidate recipes, "
              f"{len(snapshot.families)} aligned, {validated} validated families")


@app.command()
def execute(
    suite: Annotated[Path, typer.Argument(help="Suite file.")],
    target: Annotated[list[str] | None, typer.Option(help="Target name(s); default all.")] = None,
    repeats: Annotated[int, typer.Option(min=1, help="Scores per variant.")] = 1,
    timeout: Annotated[float, typer.Option(help="Seconds per scorer call.")] = 60.0,
    cache: Cache = None,
    script: Script = None,
    api_base: ApiBase = None,
    concurrency: Concurrency = 8,
    max_calls: MaxCalls = None,
    max_cost: MaxCost = None,
    quiet: Quiet = False,
) -> None:
    """Run the suite's validated families against target scorers."""
    with _errors_to_exit_codes(), _progress(not quiet) as progress:
        records = api.execute(
            suite, targets=target, repeats=repeats, timeout_s=timeout,
            llm=_settings(cache, script, api_base, concurrency, max_calls, max_cost),
            progress=progress,
        )
    faults = sum(r.verdict.value == "fault" for r in records)
    errors = sum(r.verdict.value == "error" for r in records)
    err.print(f"{len(records)} case executions: {faults} faults, {errors} errors")


def _read_human(path: Path) -> dict[str, float]:
    """Rows of target,score (a header row is allowed)."""
    if not path.is_file():
        raise InputError(str(path), None, "file not found")
    scores: dict[str, float] = {}
    with path.open(newline="", encoding="utf-8") as handle:
        for number, row in enumerate(csv.reader(handle), start=1):
            if not row or not "".join(row).strip():
                continue
            if len(row) != 2:
                raise InputError(str(path), f"row {number}", "expected two columns: target,score")
            try:
                scores[row[0].strip()] = float(row[1])
            except ValueError:
                if number == 1:
                    continue
                raise InputError(str(path), f"row {number}.score", "not a number") from None
    if not scores:
        raise InputError(str(path), None, "no target,score rows")
    return scores


@app.command()
def report(
    suite: Annotated[Path, typer.Argument(help="Suite file.")],
    format: Annotated[str, typer.Option("--format", "-f", help="json or md.")] = "json",
    out_file: Annotated[Path | None, typer.Option("--out", help="Write here, not stdout.")] = None,
    human: Annotated[Path | None, typer.Option(help="CSV of target,human score.")] = None,
) -> None:
    """Print or write the suite's report."""
    renderers = {
        "json": lambda r: json.dumps(r.model_dump(mode="json"), indent=2),
        "md": render_markdown,
    }
    with _errors_to_exit_codes():
        if format not in renderers:
            raise InputError(None, "--format", f"unknown format '{format}' (json, md)")
        text = renderers[format](api.report(suite, human=_read_human(human) if human else None))
    if out_file is None:
        sys.stdout.write(text + "\n")
    else:
        out_file.write_text(text + "\n", encoding="utf-8")
        err.print(f"wrote {out_file}")


@app.command()
def rank(
    suite: Annotated[Path, typer.Argument(help="Suite file.")],
    human: Annotated[Path | None, typer.Option(help="CSV of target,human score.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Rank the targets by pass rate, optionally against a human ranking."""
    with _errors_to_exit_codes():
        result = api.report(suite, human=_read_human(human) if human else None)
    if as_json:
        payload = {
            "ranking": [e.model_dump(mode="json") for e in result.ranking],
            "span": result.span,
            "human_alignment": (result.human_alignment.model_dump(mode="json")
                                if result.human_alignment else None),
        }
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
        return
    table = Table(title=f"Ranking: {result.suite.scorer}")
    for column in ("rank", "target", "pass rate", "95% interval", "cases"):
        table.add_column(column)
    for entry in result.ranking:
        summary = result.targets[entry.target]
        low, high = summary.pass_rate_ci or (None, None)
        table.add_row(
            str(entry.rank or "-"), entry.target,
            "-" if entry.pass_rate is None else f"{entry.pass_rate:.3f}",
            "-" if low is None else f"[{low:.3f}, {high:.3f}]",
            str(summary.cases_run),
        )
    out.print(table)
    if result.human_alignment is not None:
        out.print(render_markdown_alignment(result.human_alignment))


def render_markdown_alignment(alignment: Any) -> str:
    return json.dumps(alignment.model_dump(mode="json"), indent=2)


def main() -> None:
    app()
