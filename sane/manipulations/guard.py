"""The placebo guard: a manipulation and its placebo must differ only in meaning.

A placebo controls for everything but the manipulation's message: where it sits, its form
(its punctuation, markdown and invisible characters, in order), and its length (within the
catalogue's margin). It must carry no evaluator-directed word (read through homoglyphs), and
it must not add words of the example to one side only: a manipulation that added the
source's words would add information (unless its family is about exactly that, keyword
stuffing, and then the placebo adds none). A pair that fails is never tested: the problems
name why.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

from sane.manipulations.catalogue import WORD, Manipulation, content_words, fill

EVALUATOR_WORDS = frozenset(
    [
        "grader",
        "grade",
        "graded",
        "grading",
        "evaluator",
        "evaluate",
        "evaluation",
        "judge",
        "judged",
        "score",
        "scored",
        "scoring",
        "rating",
        "rate",
        "rated",
        "rubric",
        "excellent",
        "perfect",
        "correct",
        "correctly",
        "accurate",
        "accuracy",
        "verified",
        "verify",
        "expert",
        "experts",
        "confident",
        "certainly",
        "definitely",
        "definitively",
        "approved",
        "faithful",
        "complete",
        "thorough",
        "best",
        "highest",
        "top",
        "flawless",
        "outstanding",
    ]
)
HOMOGLYPHS = str.maketrans(
    "аеорсухіѕјԁАЕОРСУХІЅЈΑΒΕΗΙΚΜΝΟΡΤΧΥΖ", "aeopcyxisjdAEOPCYXISJABEHIKMNOPTXYZ"
)
SLOT = re.compile(r"\{\w+\}")


def readable(text: str) -> str:
    """The text as a reader sees it: homoglyphs as their Latin letters, invisible characters
    dropped."""
    mapped = unicodedata.normalize("NFKC", text).translate(HOMOGLYPHS)
    return "".join(ch for ch in mapped if unicodedata.category(ch) != "Cf")


FORM_TOKEN = re.compile(r"[^\W\d_][\w'-]*|\d+|[^\w\s]")  # a word (any script), a number, a mark


def form(snippet: str) -> str:
    """A snippet's form, in order: its punctuation, markdown and invisible characters, an
    `A` for each capitalised word and each number as it is (a placebo that named a month, or
    another count, than its manipulation would add a claim of its own); slots left out."""
    out = []
    for token in FORM_TOKEN.findall(SLOT.sub("", snippet)):
        if token[0].isdigit():
            out.append(token)
        elif token[0].isalpha():
            out.append("A" if readable(token)[0].isupper() else "")
        else:
            out.append(token)
    return "".join(out)


def evaluator_words(text: str) -> set[str]:
    return {w.lower() for w in WORD.findall(readable(text))} & EVALUATOR_WORDS


def pair_problems(manipulation: Manipulation, margin: float) -> list[str]:
    """What is wrong with a pair before any example is filled in: form and placebo words."""
    problems = []
    if manipulation.placebo_is_original:  # the control is the text itself: nothing to match
        return problems
    if form(manipulation.text) != form(manipulation.placebo):
        problems.append(
            f"not the same form: {form(manipulation.text)!r} vs placebo "
            f"{form(manipulation.placebo)!r}"
        )
    shown = evaluator_words(manipulation.placebo)
    if shown:
        problems.append(f"the placebo addresses the evaluator: {', '.join(sorted(shown))}")
    if not SLOT.search(manipulation.text):
        problems += _length(manipulation.text, manipulation.placebo, margin)
    return problems


def filled_problems(
    manipulation: Manipulation,
    margin: float,
    example: Mapping[str, str],
    scored_field: str,
    criterion: str,
) -> list[str]:
    """What is wrong with the pair once filled for one example: length, and words of the
    example added to one side only."""
    original = example[scored_field]
    text = fill(manipulation.text, original, example, scored_field, criterion)
    placebo = fill(manipulation.placebo, original, example, scored_field, criterion)
    problems = [] if manipulation.placebo_is_original else _length(text, placebo, margin)
    context = {
        w for field, value in example.items() if field != scored_field for w in content_words(value)
    }
    already = set(content_words(original))
    # the manipulation's own message (evaluator-directed words) is what it is meant to add
    added = set(content_words(readable(text))) & context - already - EVALUATOR_WORDS
    added_placebo = set(content_words(readable(placebo))) & context - already
    if manipulation.adds_example_words:
        if added_placebo:
            problems.append(f"the placebo adds words of the example: {sorted(added_placebo)}")
    elif added != added_placebo:
        one_side = sorted(added ^ added_placebo)
        problems.append(f"words of the example added to one side only: {one_side}")
    return problems


LENGTH_SLACK = 3  # characters a placebo may differ by, however short the pair


def _length(text: str, placebo: str, margin: float) -> list[str]:
    a, b = len(text), len(placebo)
    allowed = max(LENGTH_SLACK, margin * a)
    if abs(a - b) > allowed:
        return [
            f"placebo length {b} is not within {allowed:.0f} characters of the manipulation's {a}"
        ]
    return []
