"""Number formats and the markdown jinja2 environment shared by every text report.

The suite report, the baseline comparison and the review agreement all render
markdown from package templates with the same filters, so `n/a` and intervals
read the same everywhere.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from sane.errors import printable

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


def pass_rate_rank(entry: Any) -> str:
    """A ranking entry's rank by pass rate alone (McNemar), "2=" where shared, "-" without."""
    if entry.pass_rate_rank is None:
        return "-"
    return f"{entry.pass_rate_rank}=" if entry.pass_rate_tied else str(entry.pass_rate_rank)


RANK_MEANING = (
    "Rank: 1 + the number of targets whose default score is significantly higher on the cases "
    "both judged (paired sign-flip test within the default score's weighting, Holm-adjusted, "
    "5%); '=' marks a rank shared with a target no test separates from it; a target without a "
    "default score ranks after those with one, by pass rate"
)
PASS_RATE_RANK_MEANING = (
    "Pass-rate rank: 1 + the number of targets that pass significantly more often on the "
    "cases both judged (McNemar exact test, Holm-adjusted, 5%)"
)
# the one line every format shows above its ranking: which score orders it (Report.ranking_order)
ORDER_BY_DEFAULT_SCORE = (
    "Ranked by the default score, which a scorer that never moves cannot win (it gets 0.5 "
    "whatever the suite's mix); the pass rate, its interval and its own rank are shown beside"
)
ORDER_UNSCORED_AFTER = (
    "; a target without a default score (no judged case that a scorer that never moves "
    "fails) ranks after, by pass rate"
)
ORDER_BY_PASS_RATE = (
    "Ranked by pass rate: no judged case of this suite needs the score to move (a scorer that "
    "never moves passes every one), so no target has a default score"
)
NO_DEFAULT_SCORE = (
    "no default score: none of its judged cases is one a scorer that never moves fails; "
    "ranked after the targets with one, by pass rate"
)
INTERVAL_MEANING = (
    "95% CI: percentile bootstrap over the judged cases; Wilson's interval where the "
    "bootstrap collapses to a point (0/n or n/n passed)"
)
TOLERANCE_MEANING = (
    "Tolerance: the least score change that counts as a move, on the 0-1 normalised scale: "
    "the largest of a share of the standard deviation of the target's scores over the "
    "suite's examples (--tolerance-spread, 0.1 by default), a floor (--tolerance-floor, 0 by "
    "default) and twice the standard deviation of its scores when the same text is scored "
    "again (0 for a deterministic scorer). A relation that needs a move (a decrease) faults "
    "unless the score moves that way by more than the tolerance; one that needs none (an "
    "invariance) faults when the score moves either way by more than it (a change equal to "
    "it is within it). So a judge's own noise is seldom a fault, and a narrow scorer's "
    "small, consistent moves count as moves"
)


# A link or an image needs a scheme URL, `www.` (GitHub links both bare) or brackets; such a
# URL is shown as code, which no renderer links. Brackets and a sentence's closing punctuation
# stay outside it, as GitHub's autolinks leave them.
_URL = re.compile(
    r"(?i)\b(?:[a-z][a-z0-9+.\-]*://|www\.)(?:[^\s<>`()\[\]]*[^\s<>`()\[\].,;:!?'\"*_~])?"
)
# Inline markdown: escapes, code, emphasis (`_` only at a word's edge: `snake_case` renders as
# it is), strikethrough, table cells (`|`), and links, images and link definitions, which all
# need a `]` followed by `(`, `[` or `:` (an interval such as `[0.3, 0.9]` stays as it is).
_INLINE = re.compile(r"[\\`*|~]|\](?=[(\[:])|(?<![^\W_])_|_(?![^\W_])")
# What makes a line a heading, a list item or a setext underline when it starts one: a
# backslash goes before the marker (`\#`, `1\.`).
_BLOCK_START = re.compile(r"^(?:\d+(?=[.)])|(?=[#+\-=]))")


def _inline_text(text: str) -> str:
    """Plain text with every inline markdown construct and HTML written as the characters."""
    escaped = html.escape(text, quote=False)  # quotes are harmless in markdown text
    return _INLINE.sub(lambda match: "\\" + match.group(0), escaped)


def code_span(value: Any) -> Markup:
    """`value` as one inline code span, whatever it holds: fenced by one backtick more than its
    longest run of backticks, so it cannot close its own span (markdown links, renders and
    decodes nothing inside one)."""
    text = printable(" ".join(str(value).split()))
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text[:1] in ("`", " ") or text[-1:] in ("`", " ") else ""
    return Markup(f"{fence}{pad}{text}{pad}{fence}")


def markdown_text(value: Any) -> Markup:
    """Text from a suite (generated by a model, or named by whoever sent the suite) as inert
    markdown: a report is rendered where it is read (a CI summary, a PR comment), and a case
    holding `![x](http://host/beacon.png)` must not become a tracking image there, nor an
    escape sequence drive the terminal it is printed on. Control characters are written as
    escapes, HTML and inline markdown as their characters, URLs as code."""
    text = printable(str(value), newlines=True)
    parts, start = [], 0
    for url in _URL.finditer(text):
        parts.append(_inline_text(text[start : url.start()]))
        parts.append(code_span(url.group(0).replace("|", "%7C")))
        start = url.end()
    parts.append(_inline_text(text[start:]))
    return Markup("".join(parts))


def markdown_cell(value: Any, limit: int = 160) -> Markup:
    """One line of generated text for a table cell or a list item: no newline or pipe can break
    the table, nothing can start a heading or a list, long texts end in an ellipsis (the cut is
    made before escaping, so it never halves an escape)."""
    text = printable(" ".join(str(value).split()))
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return Markup(_BLOCK_START.sub(lambda match: match.group(0) + "\\", markdown_text(text)))


def inert(value: Any) -> Any:
    """Every string a template writes is inert markdown (`markdown_text`): names, criteria and
    texts come from users and models (a scorer named `</script><script>` stays text). A filter
    that already escaped its output returns Markup and is left alone."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return markdown_text(value)
    return value


def as_written(text: str) -> Markup:
    """Text the report made itself from its own names and numbers (`[0.61, 1.00]`, `2=`,
    `faults[monotonicity]`): written as it is, not escaped as text from a suite."""
    return Markup(text)


def _as_written(number_format: Callable[..., str]) -> Callable[..., Markup]:
    """A number format whose output is written as it is (`as_written`)."""
    return lambda *args, **kwargs: as_written(number_format(*args, **kwargs))


def markdown_environment(package: str, **filters: Callable[..., Any]) -> Environment:
    """A plain-text (markdown) environment for `package`'s templates/ folder (jinja2 loads
    here: the CLI reads this module's labels for its help, which must start fast)."""
    from jinja2 import Environment, PackageLoader, StrictUndefined

    env = Environment(
        finalize=inert,
        loader=PackageLoader(package, "templates"),
        undefined=StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    numbers = {"pct": pct, "num": num, "ci": ci, "rank": rank, "pass_rate_rank": pass_rate_rank}
    env.filters.update({name: _as_written(f) for name, f in numbers.items()})
    env.filters.update(cell=markdown_cell, code=code_span, as_written=as_written, **filters)
    return env
