"""A report section `example_lengths`: the words of the scored field in the suite's written
cases, by role (how long the texts the judges were shown are)."""

from __future__ import annotations

from statistics import fmean
from typing import Any

from sane.reporting import ReportContext
from sane.reporting.formatting import markdown_cell
from sane.reporting.sections import ReportSection, register_section


def lengths(context: ReportContext) -> dict[str, float]:
    words: dict[str, list[int]] = {}
    for case in context.snapshot.cases:
        for role, text in case.variants.items():
            words.setdefault(role, []).append(len(text.split()))
    return {role: round(fmean(counts), 2) for role, counts in sorted(words.items())}


def markdown(value: Any) -> str:
    rows = "\n".join(f"| {markdown_cell(role)} | {mean:g} |" for role, mean in value.items())
    return "## Example: words per text\n\n| role | mean words |\n|---|---:|\n" + rows


register_section(ReportSection("example_lengths", lengths, markdown))
