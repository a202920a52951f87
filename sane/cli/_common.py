"""What every command shares: the Typer app, exit codes, error mapping, progress, LLM options.

Exit codes: 0 success; 1 a run failed (a stage could not continue); 2 bad input
(one line on stderr naming the file, field and problem); 3 stopped at a budget
(the suite is resumable); 4 nothing measured (a target errored on every case, or a
gate had no result to check); 5 a gate failed (`sane check`: a target outside a limit);
130 interrupted (Ctrl-C: the suite keeps what it had and a rerun resumes).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console, ConsoleDimensions
from rich.text import Text

from sane.errors import BudgetExceeded, InputError, SaneError, printable

if TYPE_CHECKING:
    from sane.manipulations import SearchResult
    from sane.reporting import Funnel, Report, ReviewSummary


class _App(typer.Typer):
    """The Typer app, whose help names values in words (N, X, TEXT, PATH, SUITE) where Typer would
    print Python type names (<int>, <float>, <path>)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        command = typer.main.get_command(self)
        plain_metavars(command)
        return command(*args, **kwargs)


# What a value is called in help, by the type Typer derived for it (a param's own metavar wins).
METAVARS = {"int": "N", "float": "X", "str": "TEXT", "Path": "PATH", "bool": ""}


def plain_metavars(command: Any) -> None:
    """Give every parameter of `command` and its subcommands a metavar in words."""
    for param in command.params:
        if not hasattr(param, "type_descriptor"):
            continue
        if param.param_type_name == "argument":
            # an argument's name says what it is; Typer would add its type (<path>, <str>)
            param.metavar = param.metavar or param.name.upper()
            param.display_type_rich = lambda ctx: None
            continue
        if param.metavar is not None or getattr(param, "is_flag", False):
            continue
        descriptor = param.type_descriptor
        if descriptor.is_choice:
            choices = descriptor.choices or ()
            param.metavar = "|".join(str(getattr(c, "value", c)) for c in choices)
        else:
            name = "str" if descriptor.is_list else getattr(descriptor.annotation, "__name__", "")
            param.metavar = METAVARS.get(name, "VALUE")
    for sub in getattr(command, "commands", {}).values():
        plain_metavars(sub)


app = _App(
    name="sane",
    help="Scorer-specific metamorphic testing for LLM judges and text metrics.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # plain (click-style) help: rich's panels print Python type names such as <bool>
    rich_markup_mode=None,
)


PIPE_WIDTH = 160  # columns of a table printed where stdout is not a terminal


class TerminalConsole(Console):
    """A console that shows every string it renders with its control characters escaped
    (`\\x1b`; line breaks stay): plain lines (`say`, progress lines), markup lines, table
    titles and cells all become text here, so this is the one place where a suite's generated
    text (a recipe named with an escape sequence that clears the screen or retitles the
    window) is kept from driving the terminal. Styles rich adds itself come after, unharmed."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if "width" not in kwargs:
            self._width = None  # rich fixed COLUMNS as it was at construction: read it at print

    @property
    def size(self) -> ConsoleDimensions:
        """A pipe or a log file has no width: rich's 80 columns cut a ranking's cells into
        several lines each, so there it is PIPE_WIDTH; a terminal, COLUMNS or a width given
        keep theirs. Decided at each print, not once at import: where stdout goes (and
        COLUMNS) can change in one process (a test runner's capture, CliRunner)."""
        size = super().size
        if self._width is None and not self.is_terminal and not self._environ.get("COLUMNS"):
            return ConsoleDimensions(PIPE_WIDTH, size.height)
        return size

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        Console.size.fset(self, new_size)  # type: ignore[attr-defined]

    def render_str(self, text: str, **kwargs: Any) -> Text:
        return super().render_str(printable(text, newlines=True), **kwargs)


err = TerminalConsole(stderr=True)
out = TerminalConsole()


def _print_version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        out.print(f"sane {version('sane')}", highlight=False)
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Scorer-specific metamorphic testing for LLM judges and text metrics."""


EXIT_FAILED, EXIT_BAD_INPUT, EXIT_BUDGET, EXIT_NOTHING_MEASURED, EXIT_GATE_FAILED = 1, 2, 3, 4, 5
EXIT_INTERRUPTED = 130  # Ctrl-C (SIGINT), as a shell reports a command it interrupted


def say(text: str, *, to: Console = out, style: str | None = None) -> None:
    """One line of plain text, as given: no markup (a path may hold `[v2]`), no highlighting,
    and never wrapped, so a path in a log stays one piece to copy (rich wraps at 80 columns
    where the stream is not a terminal); control characters are escaped (TerminalConsole)."""
    to.print(text, style=style, markup=False, highlight=False, soft_wrap=True)


def fail(code: int, message: str) -> typer.Exit:
    """Say `sane: MESSAGE` on stderr (one line: a line break in it is written as `\\n`) and
    return the exit to raise."""
    say(f"sane: {printable(message)}", to=err)
    return typer.Exit(code)


def refused(exc: InputError) -> typer.Exit:
    """Bad input's one line, `sane: error: FILE: FIELD: problem`, and the exit (2) to raise."""
    return fail(EXIT_BAD_INPUT, f"error: {exc}")


@contextmanager
def errors_to_exit_codes() -> Iterator[None]:
    try:
        yield
    except InputError as exc:
        raise refused(exc) from None
    except BudgetExceeded as exc:
        raise fail(EXIT_BUDGET, f"stopped at budget: {exc}; rerun the same command to resume")
    except KeyboardInterrupt:
        # every finished item was committed as it finished, and SQLite rolled back the one
        # write in progress: nothing stored is lost, and a rerun resumes
        raise fail(
            EXIT_INTERRUPTED,
            "interrupted: the suite keeps every finished item; rerun the same command to resume",
        ) from None
    except SaneError as exc:
        raise fail(EXIT_FAILED, f"failed: {exc}") from None
    except sqlite3.DatabaseError as exc:
        # a full disk, or a file damaged while the run had it open: SQLite rolled back the
        # write in progress, so what the suite held before is intact
        raise fail(
            EXIT_FAILED, f"failed: storage error: {exc}; the suite keeps what it had"
        ) from None


class LineProgress:
    """Progress as plain lines, for a stderr that is not a terminal (a log file, CI): a line
    when a stage starts, one every `every_s` seconds while it runs (with an ETA from its pace
    so far) and one when it ends; never a redraw, so a log reads top to bottom."""

    def __init__(self, write: Callable[[str], None], every_s: float = 30.0) -> None:
        self._write, self._every_s = write, every_s
        self._started: dict[str, float] = {}
        self._last: dict[str, float] = {}
        self._ended: set[str] = set()

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        if stage in self._ended or total == 0:  # nothing to do: no "0/0 done" line
            return
        if stage not in self._started:
            self._started[stage] = self._last[stage] = now
            if done < total:
                self._write(f"{stage}: {done}/{total} started")
                return
        elapsed = now - self._started[stage]
        if done >= total:
            self._ended.add(stage)
            self._write(f"{stage}: {done}/{total} done in {elapsed:.0f} s")
        elif now - self._last[stage] >= self._every_s:
            self._last[stage] = now
            eta = f", about {elapsed / done * (total - done):.0f} s left" if done else ""
            self._write(f"{stage}: {done}/{total} after {elapsed:.0f} s{eta}")


@contextmanager
def progress_display(enabled: bool) -> Iterator[Callable[[str, int, int], None]]:
    """A rich progress bar per stage, on stderr so stdout stays machine-readable; plain
    lines (LineProgress) where stderr is not a terminal."""
    if not enabled:
        yield lambda stage, done, total: None
        return
    if not err.is_terminal:
        yield LineProgress(lambda line: say(line, to=err))
        return
    # rich.progress loads here, with the first bar: `sane --help` must start fast
    from rich.markup import escape
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (
        TextColumn("{task.description:<22}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
    )
    # Started at the first update: a run refused before any work prints its one error line
    # and nothing else (a started display ends with an empty line even when it showed nothing).
    bar = Progress(*columns, console=err, transient=False)
    tasks: dict[str, Any] = {}

    def update(stage: str, done: int, total: int) -> None:
        if total == 0:  # a stage with nothing to do gets no bar (no "0/0")
            return
        if not tasks:
            bar.start()
        if stage not in tasks:
            # a description is markup rendered by the bar itself, past TerminalConsole
            shown = escape(printable(stage))
            tasks[stage] = bar.add_task(shown, total=max(total, 1))
        bar.update(tasks[stage], completed=done if total else 1, total=max(total, 1))

    try:
        yield update
    finally:
        if tasks:
            bar.stop()


Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress display.")]
TrustSuiteCode = Annotated[
    bool,
    typer.Option(
        "--trust-suite-code",
        help="Run the suite's stored python targets when each names a module of your own "
        "(never an installed package's, the standard library's or sane's) whose file is the one "
        "the suite recorded. That module's code then runs: trust only suites you made. Without "
        "this, only the python targets a --spec of this run declares run.",
    ),
]


def print_inflation(results: list[SearchResult]) -> None:
    """Each target's score-inflation search in one line: oracle-free evidence, so it comes
    before anything the panel decided."""
    for r in results:
        e = r.strongest
        if r.error is not None:
            line = f"error after {r.calls} calls: {r.error}"
        elif e is None:
            line = f"no exploit confirmed ({r.candidates} manipulations tried, {r.calls} calls)"
        else:
            low, high = e.inflation.ci
            line = (
                f"EXPLOIT {e.family} at the {e.position} inflates by {e.inflation.mean:+.2f} "
                f"[{low:+.2f}, {high:+.2f}] over its placebo on {e.success_rate:.0%} of held-out "
                f"examples ({len(r.confirmed)} confirmed; {r.calls} calls)"
            )
        if r.failed_calls and r.error is None:
            line += f"; {r.failed_calls} calls failed (first: {r.first_failure})"
        say(f"score inflation (oracle-free), {r.target}: {line}", to=err)


def print_validity(funnel: Funnel, review: ReviewSummary | None = None) -> None:
    """The suite's own validity in plain words: the oracle and the panel first, then guards."""
    from sane.reporting import trust_lines
    from sane.validators.guards import guard_text

    for line, warning in trust_lines(funnel, review):
        if warning:
            say(f"WARNING: {line}", to=err, style="bold red")
        else:
            say(line, to=err)
    caught = "; ".join(f"{n} {guard_text(g)}" for g, n in funnel.guards.items())
    say(f"validity guards: {caught or 'nothing caught'}", to=err)


def print_ways_out(report: Report, suite: object) -> bool:
    """A dead end's ways out, each with its command for `suite` (sane.reporting._next_steps);
    whether there was one."""
    from sane.reporting import ways_out

    lines = ways_out(
        report.validity, report.review, report.suite.model, str(suite),
        comparative=report.comparison_audit is not None,
    )  # fmt: skip
    for line in lines:
        say(line, to=err, style="yellow")
    return bool(lines)
