"""CSV cells that a spreadsheet shows as text, never runs as a formula.

Why: `sane export --format csv` and `sane review export` write example texts, generated
variants and target names, any of which can begin with `=`, `+`, `-` or `@` (`=HYPERLINK(...)`,
`=cmd|' /C calc'!A0`); the review file is meant to be opened by reviewers in a spreadsheet,
which would run such a cell. Such a cell is written with a leading `'` (the spreadsheet
convention for "this is text"); numbers are left alone (`-0.5` is a number, not a formula).
The escape is reversible: `sane review import` reads each cell back as it was.
"""

from __future__ import annotations

import re

_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")


def _needs_escape(text: str) -> bool:
    if text[:1] in _TRIGGERS:
        return not _NUMBER.fullmatch(text)
    # a text that already begins with the escape and then a trigger is escaped once more,
    # so that reading it back gives it exactly
    return text[:1] == "'" and _needs_escape(text[1:])


def safe_cell(text: str) -> str:
    """The cell as written: `text`, or `'text` when a spreadsheet would read it as a formula."""
    return "'" + text if _needs_escape(text) else text


def read_cell(text: str) -> str:
    """The text a cell written by `safe_cell` holds."""
    return text[1:] if text[:1] == "'" and _needs_escape(text[1:]) else text
