"""The suite report: validity funnel, per-target results, ranking, faults and errors.

`build_report` builds every registered section (sane.reporting.sections, sane's own and any
other package's) from a `SuiteSnapshot`; `render_markdown` and `render_html` render it.
The JSON document of `sane report --format json` is `build_report(...).model_dump(mode="json")`.

The names load their module on first use: reading a stored report needs only the models,
building one needs the statistics, rendering one jinja2.
"""

from sane._lazy import exports

_EXPORTS = {
    "CallSummary": "sane.reporting._models",
    "CallTotals": "sane.reporting._models",
    "CapabilitySummary": "sane.reporting._models",
    "ErrorSummary": "sane.reporting._models",
    "ExecutionError": "sane.reporting._models",
    "FamilySummary": "sane.reporting._models",
    "FaultEvidence": "sane.reporting._models",
    "Funnel": "sane.reporting._models",
    "GateFileSpec": "sane.reporting._gate",
    "GateResult": "sane.reporting._gate",
    "GroupSummary": "sane.reporting._models",
    "HumanAlignment": "sane.reporting._models",
    "Limits": "sane.reporting._gate",
    "LiveOptions": "sane.reporting._html",
    "NOT_SHOWN_BETTER": "sane.reporting._planted",
    "PlantedTargets": "sane.reporting._planted",
    "RankingEntry": "sane.reporting._models",
    "Report": "sane.reporting._models",
    "ReportContext": "sane.reporting._build",
    "ReportSection": "sane.reporting.sections",
    "ReviewSummary": "sane.reporting._models",
    "SliceRankingEntry": "sane.reporting._models",
    "SuiteInfo": "sane.reporting._models",
    "TargetSummary": "sane.reporting._models",
    "trust_lines": "sane.reporting._next_steps",
    "ways_out": "sane.reporting._next_steps",
    "build_report": "sane.reporting._build",
    "code_fingerprint": "sane.reporting._code",
    "diff_variants": "sane.reporting._worddiff",
    "evaluate": "sane.reporting._gate",
    "gate_document": "sane.reporting._gate",
    "junit_xml": "sane.reporting._gate",
    "render_gate": "sane.reporting._gate",
    "render_html": "sane.reporting._html",
    "render_markdown": "sane.reporting._markdown",
    "register_section": "sane.reporting.sections",
}
__all__ = [
    "NOT_SHOWN_BETTER",
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
    "PlantedTargets",
    "RankingEntry",
    "Report",
    "ReportContext",
    "ReportSection",
    "ReviewSummary",
    "SliceRankingEntry",
    "SuiteInfo",
    "TargetSummary",
    "build_report",
    "code_fingerprint",
    "diff_variants",
    "evaluate",
    "gate_document",
    "junit_xml",
    "register_section",
    "render_gate",
    "render_html",
    "render_markdown",
    "trust_lines",
    "ways_out",
]


__getattr__ = exports(__name__, _EXPORTS)
