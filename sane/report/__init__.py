"""The suite report: validity funnel, per-target results, ranking, faults and errors.

`build_report` derives every number from a `SuiteSnapshot`; `render_markdown` and
`render_html` render it.
The JSON document of `sane report --format json` is `build_report(...).model_dump(mode="json")`.

The names load their module on first use: reading a stored report needs only the models,
building one needs the statistics, rendering one jinja2.
"""

from sane._lazy import exports

_EXPORTS = {
    "CallSummary": "sane.report._models",
    "CallTotals": "sane.report._models",
    "CapabilitySummary": "sane.report._models",
    "ErrorSummary": "sane.report._models",
    "ExecutionError": "sane.report._models",
    "FamilySummary": "sane.report._models",
    "FaultEvidence": "sane.report._models",
    "Funnel": "sane.report._models",
    "GateFileSpec": "sane.report._gate",
    "GateResult": "sane.report._gate",
    "GroupSummary": "sane.report._models",
    "HumanAlignment": "sane.report._models",
    "Limits": "sane.report._gate",
    "LiveOptions": "sane.report._html",
    "RankingEntry": "sane.report._models",
    "Report": "sane.report._models",
    "SliceRankingEntry": "sane.report._models",
    "SuiteInfo": "sane.report._models",
    "TargetSummary": "sane.report._models",
    "build_report": "sane.report._build",
    "code_fingerprint": "sane.report._code",
    "evaluate": "sane.report._gate",
    "gate_document": "sane.report._gate",
    "junit_xml": "sane.report._gate",
    "render_gate": "sane.report._gate",
    "render_html": "sane.report._html",
    "render_markdown": "sane.report._markdown",
}
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
    "code_fingerprint",
    "evaluate",
    "gate_document",
    "junit_xml",
    "render_gate",
    "render_html",
    "render_markdown",
]


__getattr__ = exports(__name__, _EXPORTS)
