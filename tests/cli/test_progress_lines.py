"""Progress where stderr is not a terminal (a log file, CI): plain lines, one when a stage
starts, one per interval with an ETA, one when it ends; never a redraw."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from sane.cli import app
from sane.cli._common import LineProgress


def test_a_stage_gets_a_start_line_interval_lines_with_an_eta_and_an_end_line() -> None:
    lines: list[str] = []
    progress = LineProgress(lines.append, every_s=0.0)
    progress("cases", 0, 4)
    progress("cases", 2, 4)
    progress("cases", 4, 4)
    progress("cases", 4, 4)  # a repeated end is not printed again
    progress("controls", 1, 1)  # done at once: one line
    assert [line.split(":")[0] for line in lines] == ["cases"] * 3 + ["controls"]
    assert lines[0] == "cases: 0/4 started"
    assert lines[1].startswith("cases: 2/4 after ") and "s left" in lines[1]
    assert lines[2].startswith("cases: 4/4 done in ")
    assert lines[3].startswith("controls: 1/1 done in ")


def test_a_run_logged_to_a_file_shows_each_stage_as_lines(workdir: Path) -> None:
    """`sane generate` with stderr not a terminal: stage lines, no bar characters or
    carriage returns."""
    result = CliRunner().invoke(
        app,
        ["generate", str(workdir / "tiny_spec.yaml"), "--suite", str(workdir / "suite.db"),
         "--model", "scripted", "--script", str(workdir / "tiny_script.yaml"), "--cache",
         str(workdir / "cache.db"), "--votes", "3", "--cases", "4", "--capabilities", "2",
         "--recipes", "2", "--skip-qualify"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "\r" not in result.stderr and "━" not in result.stderr
    assert (
        "capabilities: 1/1 done in " in result.stderr
        and "recipes (capabilities): 0/2 started" in result.stderr
    )


def test_a_stage_with_nothing_to_do_prints_no_zero_of_zero_line() -> None:
    """Issue 55, item 6: "controls: 0/0 done" came before a 6-13 item control record."""
    lines: list[str] = []
    progress = LineProgress(lines.append, every_s=0.0)
    progress("controls", 0, 0)
    assert lines == []


def test_qualification_progress_counts_calls_with_an_eta() -> None:
    """Issue 55, item 2: per call, not "0/1 started" for 17 minutes; a repair call more
    than expected never ends the stage early."""
    from sane.qualification.tracking import CallProgress
    from sane.records import CallRecord

    lines: list[str] = []
    counted = CallProgress(LineProgress(lines.append, every_s=0.0))
    counted.start("qualify m", 3)
    call = CallRecord(key="k", task="vote:alignment", model="m", cached=False)
    for _ in range(4):  # one repair more than expected
        counted(call)
    counted.finish()
    assert lines[0] == "qualify m: 0/3 started"
    assert lines[1].startswith("qualify m: 1/3 after ") and "s left" in lines[1]
    assert not any("3/3" in line for line in lines[:-1])
    assert lines[-1].startswith("qualify m: 3/3 done in ")


def test_tables_piped_to_a_file_are_not_cut_at_80_columns(monkeypatch) -> None:
    """Issue 55, item 6: where stdout is not a terminal, rich's 80 columns wrapped every
    ranking cell; a pipe gets PIPE_WIDTH, COLUMNS still wins."""
    import io

    from sane.cli._common import PIPE_WIDTH, TerminalConsole

    monkeypatch.delenv("COLUMNS", raising=False)
    assert TerminalConsole(file=io.StringIO()).width == PIPE_WIDTH
    monkeypatch.setenv("COLUMNS", "100")
    assert TerminalConsole(file=io.StringIO()).width == 100


def test_the_pipe_width_is_decided_at_each_print_not_at_import(monkeypatch) -> None:
    """The CLI's consoles are made once, at import: one made while COLUMNS was set (a test
    runner's worker, a shell) must not keep rich's 80 columns for a later pipe."""
    import io

    from sane.cli._common import PIPE_WIDTH, TerminalConsole

    monkeypatch.setenv("COLUMNS", "100")
    console = TerminalConsole(file=io.StringIO())
    assert console.width == 100
    monkeypatch.delenv("COLUMNS")
    assert console.width == PIPE_WIDTH
    console.print("x " * 70, soft_wrap=False)
    assert len(console.file.getvalue().splitlines()) == 1  # 140 characters, one line
