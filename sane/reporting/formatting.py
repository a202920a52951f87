"""Number formats and the markdown jinja2 environment shared by every text report.

The suite report, the baseline comparison and the review agreement all render
markdown from package templates with the same filters, so `n/a` and intervals
read the same everywhere.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

if TYPE_CHECKING:
    from jinja2 import Environment


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def num(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def ci(value: tuple[float, float] | None, as_percent: bool = False) -> str:
    if value is None:
        return "n/a"
    fmt = pct if as_percent else num
    return f"[{fmt(value[0])}, {fmt(value[1])}]"


def rank(entry: Any) -> str:
    """A ranking entry's rank, "2=" where another target shares it, "-" without one."""
    if entry.rank is None:
        return "-"
    return f"{entry.rank}=" if entry.tied else str(entry.rank)


RANK_MEANING = (
    "Rank: 1 + the number of targets that pass significantly more often on the cases both "
    "judged (McNemar exact test, Holm-adjusted, 5%); '=' marks a rank shared with a target "
    "no test separates from it"
)
INTERVAL_MEANING = (
    "95% CI: percentile bootstrap over the judged cases; Wilson's interval where the "
    "bootstrap collapses to a point (0/n or n/n passed)"
)
TOLERANCE_MEANING = (
    "Tolerance: the score change a relation must exceed, in normalised units: max(0.05, twice "
    "the standard deviation of the target's scores when the same text is scored again), so "
    "that a judge's own noise is never a fault"
)


def no_html(value: Any) -> Any:
    """Every string a template writes has its HTML neutralised: markdown renders raw HTML, and
    names, criteria and texts come from users (a scorer named `</script><script>` stays text).
    A filter that already escaped its output returns Markup and is left alone."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return html.escape(value, quote=False)  # quotes are harmless in markdown text
    return value


def markdown_environment(package: str, **filters: Callable[..., Any]) -> Environment:
    """A plain-text (markdown) environment for `package`'s templates/ folder (jinja2 loads
    here: the CLI reads this module's labels for its help, which must start fast)."""
    from jinja2 import Environment, PackageLoader, StrictUndefined

    env = Environment(
        finalize=no_html,
        loader=PackageLoader(package, "templates"),
        undefined=StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(pct=pct, num=num, ci=ci, rank=rank, **filters)
    return env
