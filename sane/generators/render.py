"""Render a :class:`Comparison` as a markdown table (layout in templates/comparison.md.j2)."""

from __future__ import annotations

from functools import cache

from jinja2 import Environment

from sane.generators.comparison import Comparison
from sane.report.formatting import markdown_environment


def _times(value: float | None) -> str:
    return "n/a (no validated family to divide by)" if value is None else f"{value:.2f} times"


@cache
def _environment() -> Environment:
    return markdown_environment("sane.generators", times=_times)


def render_comparison(comparison: Comparison) -> str:
    targets = sorted({t for col in comparison.columns for t in col.fault_detecting_by_target})
    requirements = sorted({r for col in comparison.columns for r in col.validated_by_requirement})
    return (
        _environment()
        .get_template("comparison.md.j2")
        .render(
            c=comparison,
            first=comparison.columns[0],
            targets=targets,
            requirements=requirements,
        )
    )
