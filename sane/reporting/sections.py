"""Report sections: each part of a report is one registered `ReportSection`.

A section names its key in the report and builds its value from a `ReportContext`
(sane.reporting: the suite snapshot, the build's options, and what several sections share,
each computed once: the validity funnel, the counted executions, the target summaries, the
ranking). `build_report` builds every registered section in the group's order. sane's own
fill the fields of `Report` (their layout lives in the templates); another package's land in
`Report.sections` under their names and read in the markdown report through their `markdown`
function. Register one with `register_section(ReportSection(...))` from a module of the
`sane.report_sections` entry-point group (sane._registry).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sane._registry import Registry


@dataclass(frozen=True)
class ReportSection:
    """One part of the report.

    - `name`: its key: a field of `Report` for sane's own, else its key in `Report.sections`.
    - `build(context)`: its value, from a `ReportContext`; JSON data or a pydantic record (it
      is stored with the report and read back as JSON).
    - `markdown(value)`: another package's section as markdown (a heading and its text, from
      the value read back as JSON), put after sane's own; None: JSON only. Text from the suite
      is someone else's: escape it (sane.reporting.formatting).
    """

    name: str
    build: Callable[[Any], Any]
    markdown: Callable[[Any], str] | None = None


SECTIONS: Registry[ReportSection] = Registry("report section", group="sane.report_sections")


def register_section(section: ReportSection) -> ReportSection:
    """Register `section`; a name is registered once (a section cannot replace another)."""
    if dict.__contains__(SECTIONS, section.name):
        raise ValueError(f"report section {section.name!r} is registered already")
    return SECTIONS.register(section.name)(section)


def written(sections: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Other packages' sections (a report's `sections`) as their `markdown` writes them: (name,
    text), in the report's order; one registered no longer, or without markdown, is JSON
    only. The markdown report puts them after sane's own, the HTML page as preformatted text."""
    if not sections:  # sane's own only: the registry (and its modules) stay unread
        return []
    found = [
        (name, section.markdown(value).strip("\n"))
        for name, value in sections.items()
        if (section := SECTIONS.get(name)) is not None and section.markdown is not None
    ]
    return [(name, text) for name, text in found if text]
