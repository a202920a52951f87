"""The suite report: validity funnel, per-target results, ranking, faults and errors.

`build_report` derives every number from a `SuiteSnapshot`; `render_markdown` and
`render_html` render it.
The JSON document of `sane report --format json` is `build_report(...).model_dump(mode="json")`.
"""

from sane.report._build import build_report
from sane.report._gate import (
    GateFileSpec,
    GateResult,
    Limits,
    evaluate,
    gate_document,
    junit_xml,
    render_gate,
)
from sane.report._html import LiveOptions, render_html
from sane.report._markdown import render_markdown
from sane.report._models import (
    CallSummary,
    CallTotals,
    CapabilitySummary,
    ErrorSummary,
    ExecutionError,
    FamilySummary,
    FaultEvidence,
    Funnel,
    GroupSummary,
    HumanAlignment,
    RankingEntry,
    Report,
    SliceRankingEntry,
    SuiteInfo,
    TargetSummary,
)

__all__ = [
    "CallSummary",
    "CallTotals",
    "CapabilitySummary",
    "ErrorSummary",
    "ExecutionError",
    "FamilySummary",
    "FaultEvidence",
    "Funnel",
    "GateFileSpec",
    "GateResult",
    "GroupSummary",
    "HumanAlignment",
    "Limits",
    "LiveOptions",
    "RankingEntry",
    "Report",
    "SliceRankingEntry",
    "SuiteInfo",
    "TargetSummary",
    "build_report",
    "evaluate",
    "gate_document",
    "junit_xml",
    "render_gate",
    "render_html",
    "render_markdown",
]
