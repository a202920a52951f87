"""Render a :class:`Report` as markdown through a jinja2 template.

The layout lives in ``templates/report.md.j2`` (data, not code); this module only supplies
the formatting filters, so that an undefined number prints as ``n/a`` rather than 0, a
table cell can never break the table, and no text from the suite renders as markdown
(sane.reporting.formatting).
"""

from __future__ import annotations

from functools import cache

from jinja2 import Environment

from sane.inflation_record import ROBUSTNESS
from sane.relations import formula
from sane.reporting._fault_groups import group_faults
from sane.reporting._models import Report
from sane.reporting._next_steps import first_lines
from sane.reporting._planted import DEFAULT_SCORE_MEANING, planted_notes
from sane.reporting.formatting import (
    INTERVAL_MEANING,
    PASS_RATE_RANK_MEANING,
    RANK_MEANING,
    TOLERANCE_MEANING,
    markdown_environment,
)
from sane.reporting.sections import written
from sane.validators.guards import guard_text

DEFAULT_MAX_CARDS = 20
CASES_PER_CARD = 5
DEFAULT_MAX_ERRORS = 20


def _scores(values: dict[str, list[float | None]]) -> str:
    return "; ".join(
        f"{role}: " + ", ".join("None" if v is None else f"{v:g}" for v in scores)
        for role, scores in values.items()
    )


@cache
def _environment() -> Environment:
    return markdown_environment(
        "sane.reporting", scores=_scores, guard_text=guard_text, formula=formula
    )


def render_markdown(
    report: Report,
    *,
    max_cards: int = DEFAULT_MAX_CARDS,
    max_errors: int = DEFAULT_MAX_ERRORS,
) -> str:
    """The report as a markdown document; fault cards (one per recipe per target, see
    :func:`group_faults`), their cases and the error list are capped with a count.

    The seeds' statistics follow the main report as their own section
    (``templates/statistics.md.j2``).
    """
    main = (
        _environment()
        .get_template("report.md.j2")
        .render(
            report=report,
            fault_groups=group_faults(report.faults),
            max_cards=max_cards,
            cases_per_card=CASES_PER_CARD,
            max_errors=max_errors,
            robustness=ROBUSTNESS,
            rank_meaning=RANK_MEANING,
            pass_rate_rank_meaning=PASS_RATE_RANK_MEANING,
            default_score_meaning=DEFAULT_SCORE_MEANING,
            planted_notes=planted_notes(report.planted_targets),
            interval_meaning=INTERVAL_MEANING,
            tolerance_meaning=TOLERANCE_MEANING,
            **first_lines(report),
        )
    )
    return main.rstrip("\n") + "\n\n" + render_statistics(report) + _other_sections(report)


def _other_sections(report: Report) -> str:
    return "".join(f"\n\n{text}\n" for _, text in written(report.sections))


def render_statistics(report: Report) -> str:
    """The statistics section: profiles, paired tests, graded series, variability, configs."""
    targets = report.targets.items()
    return (
        _environment()
        .get_template("statistics.md.j2")
        .render(
            report=report,
            requirements=sorted({r for _, t in targets for r in t.profile.by_requirement}),
            paired=[(n, rid, test) for n, t in targets for rid, test in t.paired_tests.items()],
            ordering=[(n, rid, o) for n, t in targets for rid, o in t.ordering.items()],
            variability=[
                (n, req, v) for n, t in targets for req, v in t.repeat_variability.items()
            ],
        )
    )
