"""`sane report` and `sane rank`: read a suite and show what it found."""

from __future__ import annotations

import csv
import io
import json
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from sane.cli._common import (
    EXIT_NOTHING_MEASURED,
    TerminalConsole,
    TrustSuiteCode,
    app,
    err,
    errors_to_exit_codes,
    out,
    say,
)
from sane.cli._comparison import comparison_lines
from sane.cli._comparison import rank_tables as comparison_tables
from sane.cli._llm_options import llm_options
from sane.errors import InputError
from sane.inflation_record import ROBUSTNESS
from sane.llm import LLMSettings
from sane.output_files import write_text_atomic
from sane.reporting.formatting import (
    INTERVAL_MEANING,
    PASS_RATE_RANK_MEANING,
    RANK_MEANING,
    pass_rate_rank,
)
from sane.reporting.formatting import rank as rank_label

if TYPE_CHECKING:
    from sane.reporting import GroupSummary, HumanAlignment, RankingEntry, Report
    from sane.stats import PairedComparison, Prevalence, Rate, ScoreComparison

FORMATS = ("summary", "json", "md", "html")


def _read_human(path: Path) -> dict[str, float]:
    """Rows of target,score (a header row is allowed)."""
    if not path.is_file():
        raise InputError(str(path), None, "file not found")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(str(path), None, "not a UTF-8 text file") from None
    except OSError as exc:
        raise InputError(str(path), None, f"cannot read: {exc.strerror}") from None
    scores: dict[str, float] = {}
    for number, row in enumerate(csv.reader(io.StringIO(text, newline="")), start=1):
        if not row or not "".join(row).strip():
            continue
        if len(row) != 2:
            raise InputError(str(path), f"row {number}", "expected two columns: target,score")
        try:
            score = float(row[1])
        except ValueError:
            if number == 1:
                continue
            raise InputError(str(path), f"row {number}.score", "not a number") from None
        if not math.isfinite(score):  # `nan` parses, and would rank silently anywhere
            raise InputError(str(path), f"row {number}.score", f"not a finite number: {row[1]}")
        scores[row[0].strip()] = score
    if not scores:
        raise InputError(str(path), None, "no target,score rows")
    return scores


@app.command()
def report(
    suite: Annotated[Path, typer.Argument(help="Suite file.")],
    format: Annotated[
        str | None,
        typer.Option(
            "--format",
            "-f",
            metavar="FORMAT",
            help="summary, json, md or html (default: summary on a terminal, json otherwise).",
        ),
    ] = None,
    out_file: Annotated[Path | None, typer.Option("--out", help="Write here, not stdout.")] = None,
    human: Annotated[Path | None, typer.Option(help="CSV of target,human score.")] = None,
) -> None:
    """Print or write the suite's report."""
    from sane import api

    with errors_to_exit_codes():
        if format is None:
            format = "summary" if out_file is None and sys.stdout.isatty() else "json"
        if format not in FORMATS:
            raise InputError(None, "--format", f"unknown format '{format}' ({', '.join(FORMATS)})")
        scores = _read_human(human) if human else None
        if format == "html":  # the page also shows each fault's recipe text
            text = api.report_html(suite, human=scores)
        else:
            built = api.report(suite, human=scores)
            if format == "summary" and out_file is None:
                _print_summary(built, suite)
                return
            text = _render(built, format)
        if out_file is not None:
            write_text_atomic(out_file, text + "\n", "--out")
    if out_file is None:
        sys.stdout.write(text + "\n")
    else:
        say(f"wrote {out_file}", to=err)


def _render(report: Report, format: str) -> str:
    from sane.reporting import render_markdown

    if format == "json":
        return json.dumps(report.model_dump(mode="json"), indent=2)
    if format == "md":
        return render_markdown(report)
    console = TerminalConsole(width=100, record=True, file=io.StringIO())
    for renderable in summary_renderables(report):
        console.print(renderable)
    return console.export_text().rstrip("\n")


def ways_out(report: Report, suite: object) -> list[str]:
    from sane.reporting import ways_out as lines

    return lines(
        report.validity, report.review, report.suite.model, str(suite),
        comparative=report.comparison_audit is not None,
    )  # fmt: skip


def _print_summary(report: Report, suite: object) -> None:
    for renderable in summary_renderables(report, suite):
        out.print(renderable)


def summary_renderables(report: Report, suite: object = "SUITE.db") -> list[object]:
    """What a person reads first: whether the panel can be trusted, the findings and the ways
    out of a dead end (with `suite`'s path), the funnel, the targets, then where the rest is
    (`--format md|html|json`)."""
    from sane.reporting import trust_lines

    funnel = report.validity
    lines: list[object] = [
        f"[bold red]WARNING: {escape(line)}[/]" if warning else escape(line)
        for line, warning in trust_lines(funnel, report.review)
    ]
    lines += findings_lines(report)
    lines += comparison_lines(report)  # a comparative suite's oracle-free audit
    lines += [f"[yellow]{escape(line)}[/]" for line in ways_out(report, suite)]
    lines.append(
        f"{escape(report.suite.scorer)}: {funnel.candidate_recipes} candidate recipes, "
        f"{funnel.aligned_recipes} aligned, {funnel.validated_families} validated families, "
        f"{funnel.joint_valid_cases} joint-valid cases (tau = {funnel.tau})"
    )
    if not report.targets:
        lines.append(
            "no target was executed yet: [bold]sane execute SUITE[/]".replace(
                "SUITE", escape(str(suite))
            )
        )
    else:
        by = "pass rate" if report.ranked_by == "pass_rate" else "default score"
        table = Table(title=f"Targets by {by}")
        columns = ("rank", "target", "default score", "pass rate", "95% CI", "faults", "errors")
        for column in (*columns, "cases"):
            table.add_column(column)
        entries = {entry.target: entry for entry in report.ranking}
        order = {name: index for index, name in enumerate(entries)}
        for name, summary in sorted(
            report.targets.items(), key=lambda item: (order.get(item[0], len(order)), item[0])
        ):
            no_result = summary.passes + summary.faults == 0
            entry = entries[name]
            table.add_row(
                rank_label(entry),
                escape(name),
                _fmt(entry.default_score),
                "[red]error: no result[/]" if no_result else _fmt(summary.pass_rate),
                _interval_cell(entry),
                str(summary.faults),
                str(summary.errors),
                str(summary.cases_run),
            )
        if report.ranking_order:
            table.caption = escape(report.ranking_order)
        lines.append(table)
        lines += [f"[yellow]{escape(note)}[/]" for note in ranking_notes(report)]
    if report.not_executed:
        lines.append("not executed: " + escape(", ".join(report.not_executed)))
    lines.append("[dim]faults with evidence: --format md or html; every number: --format json[/]")
    return lines


def findings_lines(report: Report) -> list[str]:
    """The findings headline as rich markup: whether the faults are evidence, then one line
    per target (red where it fails something)."""
    found = report.findings
    if found is None:
        return []
    basis = escape(found.basis)
    lines = [
        f"[bold]Findings.[/] {basis}"
        if found.panel_evidence
        else f"[bold]Findings.[/] [yellow]{basis}[/]"
    ]
    for target in found.targets:
        text = escape(target.headline)
        lines.append(f"  [red]{text}[/]" if target.recipes or target.exploits else f"  {text}")
    return lines


def _parse_fields(pairs: list[str] | None) -> dict[str, str]:
    """``--field summary=system_output`` -> {"summary": "system_output"}."""
    fields = {}
    for pair in pairs or []:
        name, sep, column = pair.partition("=")
        if not sep or not name.strip() or not column.strip():
            raise InputError(None, "--field", f"expected SPEC_FIELD=DATA_COLUMN, got {pair!r}")
        fields[name.strip()] = column.strip()
    return fields


@app.command()
@llm_options("cache", "script", "api_base", concurrency=1)
def rank(
    suite: Annotated[Path, typer.Argument(help="Suite file.")],
    human: Annotated[Path | None, typer.Option(help="CSV of target,human score.")] = None,
    human_data: Annotated[
        Path | None,
        typer.Option(help="Labelled data (.json/.jsonl/.csv/.tsv): the benchmark is computed."),
    ] = None,
    label_field: Annotated[
        str | None, typer.Option(help="Label field of --human-data (dotted: scores.consistency).")
    ] = None,
    binary: Annotated[bool, typer.Option(help="Labels are 0/1: agreement is AUROC.")] = False,
    field: Annotated[
        list[str] | None,
        typer.Option(
            metavar="SPEC_FIELD=COLUMN", help="SPEC_FIELD=DATA_COLUMN for --human-data; repeat."
        ),
    ] = None,
    limit: Annotated[
        int | None, typer.Option(min=2, help="Score a seeded sample of this many records.")
    ] = None,
    invert_labels: Annotated[
        bool, typer.Option(help="Labels run opposite to the spec's score direction.")
    ] = False,
    target: Annotated[
        list[str] | None,
        typer.Option(metavar="NAME", help="Targets for --human-data; default: those executed."),
    ] = None,
    timeout: Annotated[float, typer.Option(help="Seconds per scorer call.")] = 60.0,
    verdict_threshold: Annotated[
        float,
        typer.Option(
            min=0.0,
            max=1.0,
            help="With --binary: a normalised score at least this is a positive verdict "
            "(kappa, TPR/TNR, the corrected prevalence).",
        ),
    ] = 0.5,
    certify_at: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            max=1.0,
            metavar="BAR",
            help="With --binary: a target is 'certified at BAR' when the Wilson lower bounds "
            "of its TPR and TNR both reach BAR (sane check --min-certification gates on it).",
        ),
    ] = None,
    llm: LLMSettings | None = None,  # from the LLM options (sane.cli._llm_options)
    compare: Annotated[
        tuple[str, str] | None,
        typer.Option(
            metavar="A B",
            help="Compare two targets on the cases both judged: McNemar's exact test and "
            "the paired pass-rate difference.",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    trust_suite_code: TrustSuiteCode = False,
) -> None:
    """Rank the targets by default score (pass rate beside), optionally against humans.

    The default score is a balanced accuracy a scorer that never moves cannot win (it gets
    0.5); the pass rate, its interval and its own rank are shown beside, and the
    per-requirement rankings are by pass rate. Targets that no paired test separates share a
    rank ("2="). --compare A B shows A against B on the cases both judged, which is the
    question when a new judge version arrives.

    The human side is --human (target,score CSV) or --human-data with --label-field: each
    target is run on the labelled records and its Spearman rho with the labels (AUROC with
    --binary) becomes its human benchmark value; graded labels add Kendall's tau, binary
    ones the verdicts' kappa, TPR and TNR with Wilson lower bounds, the certification at
    --certify-at and the Rogan-Gladen corrected prevalence on the suite's examples.
    """
    with errors_to_exit_codes():
        result = _rank_report(
            suite,
            human=human,
            human_data=human_data,
            label_field=label_field,
            binary=binary,
            fields=_parse_fields(field),
            limit=limit,
            invert_labels=invert_labels,
            targets=target,
            timeout=timeout,
            llm=llm,
            trust_suite_code=trust_suite_code,
            verdict_threshold=verdict_threshold,
            certify_at=certify_at,
        )
        pair = find_comparison(result, *compare) if compare else None
        score_pair = find_score_comparison(result, *compare) if compare else None
    if as_json:
        payload = {
            "ranked_by": result.ranked_by,
            "ranking_order": result.ranking_order,
            "ranking": [e.model_dump(mode="json") for e in result.ranking],
            "span": result.span,
            "intervals": {
                name: summary.pass_rate_bootstrap_ci for name, summary in result.targets.items()
            },
            "ranking_by_requirement": {
                k: [e.model_dump(mode="json") for e in v]
                for k, v in result.ranking_by_requirement.items()
            },
            "ranking_by_capability": {
                k: [e.model_dump(mode="json") for e in v]
                for k, v in result.ranking_by_capability.items()
            },
            "span_by_requirement": result.span_by_requirement,
            "default_scores": {
                name: score.model_dump(mode="json") for name, score in result.default_scores.items()
            },
            "planted_targets": (
                result.planted_targets.model_dump(mode="json") if result.planted_targets else None
            ),
            "tolerance_sensitivity": (
                result.tolerance_sensitivity.model_dump(mode="json")
                if result.tolerance_sensitivity
                else None
            ),
            "human_alignment": (
                result.human_alignment.model_dump(mode="json") if result.human_alignment else None
            ),
            "comparisons": [c.model_dump(mode="json") for c in result.comparisons],
            "default_score_comparisons": [
                c.model_dump(mode="json") for c in result.default_score_comparisons
            ],
        }
        if result.comparison_audit is not None:  # a comparative suite's audit, human pairs
            payload["comparison_audit"] = result.comparison_audit.model_dump(mode="json")
        if pair is not None:
            payload["comparison"] = pair.model_dump(mode="json")
        if score_pair is not None:
            payload["default_score_comparison"] = score_pair.model_dump(mode="json")
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
        return
    if not result.ranking:  # a suite never executed: a line saying so, not an empty table
        say(f"nothing to rank: no target was executed yet; run `sane execute {suite}`", to=err)
        ways_out_lines = ways_out(result, suite)
        for line in ways_out_lines:
            say(line, to=err)
        raise typer.Exit(EXIT_NOTHING_MEASURED)
    for table in [*rank_tables(result), *comparison_tables(result)]:
        out.print(table)
    if pair is not None:
        out.print(comparison_table(pair))
        if score_pair is not None:
            say(score_comparison_line(score_pair))


def _rank_report(
    suite: Path,
    *,
    human: Path | None,
    human_data: Path | None,
    label_field: str | None,
    binary: bool,
    fields: dict[str, str],
    limit: int | None,
    invert_labels: bool,
    targets: list[str] | None,
    timeout: float,
    llm: LLMSettings | None,
    trust_suite_code: bool,
    verdict_threshold: float = 0.5,
    certify_at: float | None = None,
) -> Report:
    """The suite's report, against --human or the benchmark computed from --human-data."""
    from sane import api
    from sane.analyses.human_alignment import human_benchmark
    from sane.reporting import build_report
    from sane.suites.store import SuiteStore

    if human is not None and human_data is not None:
        raise InputError(None, "--human-data", "give either --human or --human-data, not both")
    if human_data is None:
        return api.report(suite, human=_read_human(human) if human else None)
    if not label_field:
        raise InputError(None, "--label-field", "required with --human-data")
    benchmark = human_benchmark(
        suite,
        human_data,
        label_field=label_field,
        binary=binary,
        fields=fields,
        targets=targets,
        limit=limit,
        invert_labels=invert_labels,
        timeout_s=timeout,
        llm=llm,
        trust_suite_code=trust_suite_code,
        threshold=verdict_threshold,
        bar=certify_at,
    )
    for name, count in benchmark.errors.items():
        if count:
            say(
                f"{name}: {count} of {benchmark.records} labelled records could not be scored "
                f"(first: {benchmark.first_error.get(name, '')})",
                to=err,
            )
    store = SuiteStore(suite, readonly=True)
    try:
        snapshot = store.snapshot()
    finally:
        store.close()
    return build_report(
        snapshot,
        human=benchmark.values,
        human_source=benchmark.source,
        human_agreement=benchmark.agreement,
        human_pairwise=benchmark.pairwise or None,
        human_reliability=benchmark.reliability,
    )


def _fmt(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _fmt_ci(ci: tuple[float, float] | None) -> str:
    return "-" if ci is None else f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def rank_tables(result: Report) -> list[Table]:
    """The ranking, the per-requirement rankings and the human alignment as rich tables."""
    tables = []
    main = Table(title=f"Ranking: {result.suite.scorer} (pass-rate span {_fmt(result.span)})")
    robust = ROBUSTNESS in result.ranking_by_requirement
    columns = ["rank", "target", "default score [95% CI]", "pass rate", "95% CI"]
    columns += ["pass-rate rank", "stability / sensitivity", "judged cases", "errors"]
    for column in columns + ([f"{ROBUSTNESS} (oracle-free)"] if robust else []):
        main.add_column(column)
    for entry in result.ranking:
        summary = result.targets[entry.target]
        line = summary.by_requirement.get(ROBUSTNESS)
        main.add_row(
            rank_label(entry),
            entry.target,
            _default_cell(entry),
            _fmt(entry.pass_rate),
            _interval_cell(entry),
            pass_rate_rank(entry),
            f"{_fmt(summary.stability)} / {_fmt(summary.sensitivity)}",
            str(entry.cases),
            str(entry.errors),
            *([_robustness_cell(line)] if robust else []),
        )
    notes = [result.ranking_order] if result.ranking_order else []
    notes += [RANK_MEANING, PASS_RATE_RANK_MEANING, INTERVAL_MEANING]
    if robust:
        notes.append(
            f"{ROBUSTNESS}: the share of manipulation families searched with no confirmed "
            "exploit (no oracle; not part of the pass rate)"
        )
    main.caption = escape("; ".join(notes + ranking_notes(result)))
    tables.append(main)
    if result.ranking_by_requirement:
        by_req = Table(
            title=escape(
                "Per requirement, by pass rate (McNemar): rank, pass rate [95% CI] (judged cases)"
            )
        )
        by_req.add_column("requirement")
        by_req.add_column("span")
        by_req.add_column("ranking")
        for requirement, entries in result.ranking_by_requirement.items():
            by_req.add_row(
                requirement,
                _fmt(result.span_by_requirement.get(requirement)),
                "\n".join(
                    f"{rank_label(e)}. {e.target} {_fmt(e.pass_rate)} {_interval_cell(e)} ({e.cases})"
                    for e in entries
                ),
            )
        tables.append(by_req)
    if result.human_alignment is not None:
        tables += _alignment_tables(result.human_alignment)
    return tables


def ranking_notes(result: Report) -> list[str]:
    """Where the planted null scorers fall and who is not shown better than the constant one
    (sane.reporting._planted), how the order fares under other tolerance floors
    (sane.reporting._tolerance), then per target why it is not ranked or that its scores barely
    move (sane.reporting._health): below a table rather than in a column, so the table keeps
    to a terminal's width."""
    from sane.reporting import planted_notes

    notes = planted_notes(result.planted_targets)
    if result.tolerance_sensitivity is not None:
        notes.append(result.tolerance_sensitivity.sentence())
    return notes + [f"{e.target}: {e.note}" for e in result.ranking if e.note]


def _default_cell(entry: RankingEntry) -> str:
    """The default score (balanced accuracy over the cases that need a move and those that need
    none), its interval and the number of discriminating cases."""
    if entry.default_score is None:
        return "-"
    return f"{entry.default_score:.3f} {_fmt_ci(entry.default_score_ci)} ({entry.discriminating_cases})"


def _interval_cell(entry: RankingEntry) -> str:
    if entry.ci is None:
        return "-"
    return _fmt_ci(entry.ci) + (" W" if entry.ci_method == "wilson" else "")


def comparison_table(pair: PairedComparison) -> Table:
    """One paired comparison: the four cells, McNemar's test and the paired difference."""
    table = Table(title=f"{pair.a} vs. {pair.b} on the {pair.cases} cases both judged")
    for column in ("", f"{pair.b} passes", f"{pair.b} faults"):
        table.add_column(column)
    table.add_row(f"{pair.a} passes", str(pair.both_pass), str(pair.only_a_passes))
    table.add_row(f"{pair.a} faults", str(pair.only_b_passes), str(pair.both_fault))
    if pair.cases:
        verdict = (
            f"{pair.better} passes significantly more often"
            if pair.better
            else "no significant difference"
        )
        method = "bootstrap" if pair.difference_ci_method == "bootstrap" else "Newcombe"
        table.caption = escape(
            f"pass rate {_fmt(pair.pass_rate_a)} vs. {_fmt(pair.pass_rate_b)}; difference "
            f"{pair.difference:+.3f} {_fmt_ci(pair.difference_ci)} (95%, {method}); McNemar "
            f"exact p = {_fmt(pair.p_value)}, Holm-adjusted over the ranking's "
            f"pairs {_fmt(pair.p_adjusted)}: {verdict}"
        )
    else:
        table.caption = escape(pair.note or "no case judged by both")
    return table


def find_score_comparison(report: Report, a: str, b: str) -> ScoreComparison | None:
    """The report's comparison of ``a``'s default score with ``b``'s (a first), if tested."""
    for pair in report.default_score_comparisons:
        if {pair.a, pair.b} == {a, b}:
            return pair.seen_from(a)
    return None


def score_comparison_line(pair: ScoreComparison) -> str:
    """One line: the two default scores on the shared cases and the sign-flip test."""
    if pair.difference is None:
        return f"default score: {pair.note or 'not compared'}"
    verdict = (
        f"{pair.better}'s is significantly higher" if pair.better else "no significant difference"
    )
    apart = (
        f"; {pair.classed_apart} level case(s) left out: a scorer staying at one target's own "
        "level would pass them, at the other's fail them"
        if pair.classed_apart
        else ""
    )
    return (
        f"default score {_fmt(pair.score_a)} vs. {_fmt(pair.score_b)} on the {pair.cases} "
        f"shared cases ({pair.discriminating_cases} discriminating{apart}); difference "
        f"{pair.difference:+.3f} {_fmt_ci(pair.difference_ci)} (95%, paired bootstrap); "
        f"sign-flip p = {_fmt(pair.p_value)} ({pair.p_method}), Holm-adjusted over the "
        f"ranking's pairs {_fmt(pair.p_adjusted)}: {verdict}"
    )


def find_comparison(report: Report, a: str, b: str) -> PairedComparison:
    """The report's comparison of ``a`` with ``b`` (a first); InputError naming --compare."""
    for name in (a, b):
        if name not in report.targets:
            known = ", ".join(report.targets) or "none"
            raise InputError(
                None, "--compare", f"no target {name!r} in the suite (targets: {known})"
            )
    if a == b:
        raise InputError(None, "--compare", "give two different targets")
    for pair in report.comparisons:
        if {pair.a, pair.b} == {a, b}:
            return pair.seen_from(a)
    judged = [n for n in (a, b) if not report.targets[n].passes + report.targets[n].faults]
    raise InputError(None, "--compare", f"{', '.join(judged) or a} has no judged case")


def _rate_cell(rate: Rate) -> str:
    """``0.850 (17/20) >= 0.640``: the rate, its counts and its Wilson lower bound."""
    if rate.value is None:
        return "-"
    return f"{rate.value:.3f} ({rate.hits}/{rate.n}) >= {_fmt(rate.lower)}"


def _prevalence_cell(prevalence: Prevalence | None) -> str:
    if prevalence is None:
        return "-"
    if prevalence.corrected is None:
        return f"{prevalence.apparent:.3f} -> {prevalence.note}"
    return f"{prevalence.apparent:.3f} -> {prevalence.corrected:.3f} {_fmt_ci(prevalence.ci)}"


def _verdict_table(alignment: HumanAlignment) -> Table | None:
    """Binary labels: each target's verdicts against them, and its certification line."""
    rows = {n: a.verdicts for n, a in sorted(alignment.per_target.items()) if a.verdicts}
    if not rows:
        return None
    threshold = next(iter(rows.values())).threshold
    table = Table(title=f"Verdicts (normalised score >= {threshold:g}) against the labels")
    for column in (
        "target",
        "Cohen's kappa",
        "TPR (hits/n) >= Wilson lower bound",
        "TNR (hits/n) >= Wilson lower bound",
        "prevalence on the suite's examples -> Rogan-Gladen [95% CI]",
        "certification",
    ):
        table.add_column(column)
    for name, verdicts in rows.items():
        table.add_row(
            name,
            _fmt(verdicts.kappa),
            _rate_cell(verdicts.tpr),
            _rate_cell(verdicts.tnr),
            _prevalence_cell(verdicts.prevalence),
            verdicts.certification() or "-",
        )
    table.caption = (
        "positive = label 1; certified at BAR when both Wilson 95% lower bounds reach it "
        "(--certify-at); the prevalence is corrected for the target's TPR and TNR"
    )
    return table


def _robustness_cell(line: GroupSummary | None) -> str:
    if line is None or line.pass_rate is None:
        return "error" if line is not None and line.errors else "-"
    return f"{line.pass_rate:.3f} ({line.passes}/{line.cases} families)"


def _alignment_tables(alignment: HumanAlignment) -> list[Table]:
    source = alignment.human_source or "human benchmark"
    table = Table(title=f"Ranking vs. {source} ({alignment.n} common targets)")
    for column in ("statistic", "value", f"bootstrap {alignment.confidence:.0%} CI", "p-value"):
        table.add_column(column)
    default = alignment.default_score
    rows = [("default score (the ranking's order)", default)] if default is not None else []
    for label, correlation in [*rows, ("pass rate", alignment)]:
        table.add_row(
            f"Spearman rho, {label}",
            _fmt(correlation.spearman),
            _fmt_ci(correlation.spearman_ci),
            _fmt(correlation.spearman_p),
        )
        table.add_row(
            f"Kendall tau-b, {label.split(' (')[0]}",
            _fmt(correlation.kendall),
            _fmt_ci(correlation.kendall_ci),
            _fmt(correlation.kendall_p),
        )
    notes = [alignment.note, default.note and f"default score: {default.note}" if default else None]
    if any(notes):
        table.caption = "; ".join(filter(None, notes))
    missing = []
    if alignment.only_in_suite:
        missing.append("no human value: " + ", ".join(alignment.only_in_suite))
    if alignment.only_in_human:
        missing.append("not in the suite: " + ", ".join(alignment.only_in_human))
    if missing:
        table.caption = "; ".join(filter(None, [table.caption, *missing]))
    if alignment.reliability is not None:
        table.caption = "; ".join(filter(None, [table.caption, alignment.reliability.sentence()]))
    tables = [table]
    if alignment.per_target:
        per = Table(title="Human benchmark per target (agreement with the labels)")
        graded = any(a.measure == "spearman" for a in alignment.per_target.values())
        columns = ["target", "measure", "value", "bootstrap 95% CI"]
        for column in columns + ["Kendall tau-b"] * graded + ["records", "note"]:
            per.add_column(column)
        for name, agreement in sorted(alignment.per_target.items()):
            per.add_row(
                name,
                agreement.measure,
                _fmt(agreement.value),
                _fmt_ci(agreement.ci),
                *[_fmt(agreement.kendall)] * graded,
                str(agreement.n),
                agreement.note or "",
            )
        tables.append(per)
        verdicts = _verdict_table(alignment)
        if verdicts is not None:
            tables.append(verdicts)
    elif alignment.human:
        per = Table(title="Human benchmark per target")
        per.add_column("target")
        per.add_column("human score")
        for name, value in sorted(alignment.human.items()):
            per.add_row(name, f"{value:g}")
        tables.append(per)
    return tables
