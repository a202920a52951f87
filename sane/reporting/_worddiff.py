"""Word-level differences between a case's variants, for highlighting in the HTML report.

Why: a fault is judged by eye, and the eye needs to see what the perturbation changed.
Each variant keeps its own true text; the reference variant marks the words that another
variant removed or replaced (``-``), every other variant marks the words it added or
replaced (``+``). Segments are plain data (kind, text), so the page builds them with
``textContent`` and a variant can never inject markup.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from difflib import SequenceMatcher

Segment = tuple[str, str]  # ("=" | "+" | "-", text)

_TOKEN = re.compile(r"\s+|\w+|[^\w\s]")


def tokens(text: str) -> list[str]:
    """Words, whitespace runs and single punctuation marks; joined, they give the text back."""
    return _TOKEN.findall(text)


def _merge(marked: list[tuple[str, str]]) -> list[Segment]:
    """Join neighbouring tokens of one kind; whitespace between two changes stays changed."""
    merged: list[list[str]] = []
    for kind, token in marked:
        if merged and merged[-1][0] == kind:
            merged[-1][1] += token
        else:
            merged.append([kind, token])
    return [(kind, text) for kind, text in merged]


def _gaps(toks: list[str], at: list[int]) -> list[tuple[int, int]]:
    """Token ranges before, between and after the content tokens at indexes ``at``."""
    bounds = [-1, *at, len(toks)]
    return [(a + 1, b) for a, b in itertools.pairwise(bounds)]


def _changed_spans(reference: list[str], other: list[str]) -> tuple[set[int], set[int]]:
    """Indexes of reference tokens removed/replaced, and of other tokens added/replaced.

    Words and punctuation are matched first (whitespace runs repeat so often that
    matching them too would make the diff quadratic); then, between two matched words,
    differing whitespace is marked too, so a re-spacing or an added blank line shows."""
    ref_at = [i for i, t in enumerate(reference) if not t.isspace()]
    other_at = [j for j, t in enumerate(other) if not t.isspace()]
    matcher = SequenceMatcher(
        None, [reference[i] for i in ref_at], [other[j] for j in other_at], autojunk=False
    )
    removed, added = set(), set()
    ref_gaps, other_gaps = _gaps(reference, ref_at), _gaps(other, other_at)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op != "equal":
            removed.update(ref_at[i1:i2])
            added.update(other_at[j1:j2])
            continue
        # gaps i1+1..i2-1 lie between matched words; the edge gaps (before the first
        # word, after the last) are compared too when the whole text matches around them
        for gap in range(i1 if i1 == 0 and j1 == 0 else i1 + 1, i2 + 1):
            if gap == i2 and not (i2 == len(ref_at) and j2 == len(other_at)):
                continue
            (a, b), (c, d) = ref_gaps[gap], other_gaps[j1 + gap - i1]
            if reference[a:b] != other[c:d]:
                removed.update(range(a, b))
                added.update(range(c, d))
    return removed, added


def _mark(toks: list[str], changed: set[int], kind: str) -> list[Segment]:
    bridged = changed | {
        i
        for i, t in enumerate(toks)
        if t.isspace() and i - 1 in changed and i + 1 in changed and not toks[i - 1].isspace()
    }
    return _merge([(kind if i in bridged else "=", t) for i, t in enumerate(toks)])


def diff_variants(
    variants: Mapping[str, str], reference: str | None = None
) -> dict[str, list[Segment]]:
    """Segments per role: ``reference`` (default: the first role) against every other role."""
    if not variants:
        return {}
    reference = reference if reference in variants else next(iter(variants))
    ref_tokens = tokens(variants[reference])
    removed_any: set[int] = set()
    result: dict[str, list[Segment]] = {}
    for role, text in variants.items():
        if role == reference:
            continue
        other = tokens(text)
        removed, added = _changed_spans(ref_tokens, other)
        removed_any |= removed
        result[role] = _mark(other, added, "+")
    return {reference: _mark(ref_tokens, removed_any, "-")} | result
