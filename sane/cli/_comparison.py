"""A comparative suite's audit and human pairwise agreement on a terminal: the summary's
lines (findings first, in red) and `sane rank`'s tables. Nothing here for a pointwise suite."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.markup import escape
from rich.table import Table

from sane.reporting.formatting import rank as rank_label

if TYPE_CHECKING:
    from sane.reporting import ComparisonSection, Report
    from sane.stats import PairwiseAgreement

_STYLE = {"finding": "red", "error": "bold red", "failed_calls": "yellow"}


def comparison_lines(report: Report) -> list[str]:
    """The audit's head as rich markup: every finding (red), then each target's failure or
    clean bill; none for a pointwise suite."""
    section = report.comparison_audit
    if section is None:
        return []
    lines = ["[bold]Comparative judges (oracle-free).[/]"]
    if not section.headlines:
        lines.append("  no comparison audit yet: run `sane execute` (--comparison-examples N)")
    for line in section.headlines:
        style = _STYLE.get(line.kind)
        text = escape(line.text)
        lines.append(f"  [{style}]{text}[/]" if style else f"  {text}")
    return lines


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _interval(ci: tuple[float, float] | None) -> str:
    return "" if ci is None else f" [{ci[0]:.0%}, {ci[1]:.0%}]"


def comparison_table(section: ComparisonSection) -> Table:
    """Each comparative target beside its rank: swap consistency and audit findings."""
    table = Table(title="Comparative judges: the comparison audit beside the ranking")
    for column in ("rank", "target", "swap consistency [95% CI]", "audit findings", "calls"):
        table.add_column(column)
    for t in section.targets:
        swap = "error" if t.error else _pct(t.swap_consistency) + _interval(t.swap_consistency_ci)
        calls = f"{t.calls}" + (f" ({t.failed_calls} failed)" if t.failed_calls else "")
        table.add_row(rank_label(t), escape(t.target), swap, str(t.findings), calls)
    table.caption = (
        "swap consistency: the share of decisive verdicts that hold when the candidates swap "
        "places; audit findings: `sane report` lists them"
    )
    return table


def _accuracy(agreement: PairwiseAgreement) -> str:
    rate = agreement.accuracy
    if rate.value is None:
        return "-"
    return f"{rate.value:.3f} ({rate.hits}/{rate.n}){_interval(rate.ci)}"


def agreement_table(section: ComparisonSection) -> Table | None:
    """Each target against the human pairwise verdicts (`sane rank --human-data` on pairs)."""
    if not section.pairwise_agreement:
        return None
    source = escape(section.human_source or "pairs")
    table = Table(title=f"Against human pairwise verdicts ({source})")
    columns = ("target", "pairs", "decided", "accuracy (hits/n) [95% CI]", "judge ties", "kappa")
    for column in columns:
        table.add_column(column)
    for name, agreement in section.pairwise_agreement.items():
        kappa = "-" if agreement.kappa is None else f"{agreement.kappa:.3f}"
        table.add_row(
            escape(name), str(agreement.pairs), str(agreement.decided), _accuracy(agreement),
            str(agreement.judge_ties), kappa,
        )  # fmt: skip
    table.caption = (
        "accuracy: the judge picked the humans' winner on the pairs they decided (a tie is a "
        "miss; Wilson 95% interval); judge ties: decided pairs the judge called a tie; kappa: "
        "Cohen's, over A, B and tie"
    )
    return table


def rank_tables(report: Report) -> list[Table]:
    """`sane rank`'s tables for a comparative suite, after the ranking's own."""
    section = report.comparison_audit
    if section is None:
        return []
    tables = [comparison_table(section)] if section.targets else []
    agreement = agreement_table(section)
    return tables + ([agreement] if agreement is not None else [])


def print_comparisons(report: Report) -> bool:
    """After `sane execute`: each audit's head, one plain line each on stderr (findings
    first), as the score-inflation search's are; whether any target was audited."""
    from sane.cli._common import err, say

    section = report.comparison_audit
    if section is None or not section.targets:
        return False
    for line in section.headlines:
        style = "red" if line.kind in ("finding", "error") else None
        say(f"comparison audit (oracle-free): {line.text}", to=err, style=style)
    return True
