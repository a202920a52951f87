"""Python targets of spread quality for `bench_ranking.py` (a spec names them by `ref`).

Why these: the ranking benchmark needs candidates whose agreement with human consistency
labels spans the range, some of them planted defects of a good one, so that a suite's
ranking can be checked against a human one. Each returns a score in [0, 1] (higher = more
faithful to the source). Text in QAGS is tokenised (spaces around punctuation), so a split
on whitespace gives its tokens.
"""

from __future__ import annotations

import hashlib
import re

_WORD = re.compile(r"[a-z0-9]+")


def _tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _ngrams(tokens: list[str], n: int) -> list[tuple[str, ...]]:
    return [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]


def _precision(record: dict[str, str], n: int) -> float:
    """The share of the summary's n-grams found in the source (1.0 for an empty summary)."""
    summary = _ngrams(_tokens(record["summary"]), n)
    source = set(_ngrams(_tokens(record["source"]), n))
    return 1.0 if not summary else sum(g in source for g in summary) / len(summary)


def unigram_precision(record: dict[str, str]) -> float:
    return _precision(record, 1)


def bigram_precision(record: dict[str, str]) -> float:
    return _precision(record, 2)


def trigram_precision(record: dict[str, str]) -> float:
    return _precision(record, 3)


def entity_precision(record: dict[str, str]) -> float:
    """The share of the summary's numbers and capitalised words (names) found in the source.

    On QAGS it reads little more than numbers: the text is lower-cased except where a sentence
    starts (names too: "says author sarah flower"), so its capitalised words are sentence
    openers. It scores 1.0 on 74% of the CNN/DM summaries and 89% of the XSum ones: close to a
    scorer that never moves, which its human agreement (+0.08) and its default scores (about
    0.5, not shown better than the constant scorer) both say."""
    source = set(_tokens(record["source"]))
    marked = [w for w in record["summary"].split() if w[:1].isupper() or w[:1].isdigit()]
    found = [w.lower().strip(".,'") in source for w in marked[1:]]  # the first word is a capital
    return 1.0 if not found else sum(found) / len(found)


# ---------------------------------------------------------------- planted defects of trigram


def trigram_first_sentence(record: dict[str, str]) -> float:
    """Reads only the summary's first sentence: blind to claims added after it."""
    first = re.split(r"(?<=[.!?])\s", record["summary"].strip(), maxsplit=1)[0]
    return _precision({"summary": first, "source": record["source"]}, 3)


def trigram_inverted(record: dict[str, str]) -> float:
    """Rewards unsupported text: the direction is wrong."""
    return 1.0 - _precision(record, 3)


def trigram_noisy(record: dict[str, str]) -> float:
    """Trigram precision with heavy noise, fixed per text (a weak, erratic judge)."""
    digest = hashlib.sha256(record["summary"].encode("utf-8")).digest()
    noise = digest[0] / 255.0
    return 0.4 * _precision(record, 3) + 0.6 * noise
