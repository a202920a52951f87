"""Python targets of spread quality for the politeness ranking benchmark
(`bench_ranking_politeness.py`; a spec names them by `ref`).

Why these: a second human-labelled task on which a suite's ranking of scorers can be set
against people's (Stanford Politeness: requests rated by five annotators), with candidates
whose agreement with the ratings spans the range. They are lexicons of the politeness
strategies of Danescu-Niculescu-Mizil et al. (2013): gratitude, "please", hedges and
indirect requests, apology, greeting and deference raise a request's politeness; direct
questions, a request that opens on "you", and negative or accusing words lower it. Partial
lexicons and planted defects of the full one (inverted, noisy) fill the range. Each returns
a score in [0, 1], higher = more polite, and is deterministic.
"""

from __future__ import annotations

import hashlib
import math
import re

_WORD = re.compile(r"[a-z']+")

POSITIVE = {
    "gratitude": (r"\bthank", r"\bappreciat", r"\bgrateful"),
    "please": (r"\bplease\b", r"\bpls\b"),
    "hedge": (
        r"\bwould you\b",
        r"\bcould you\b",
        r"\bwould it\b",
        r"\bi think\b",
        r"\bmaybe\b",
        r"\bperhaps\b",
        r"\bpossibly\b",
        r"\bi wonder",
        r"\bif you (don't|do not) mind",
        r"\bmight\b",
        r"\bi suppose\b",
    ),
    "apology": (r"\bsorry\b", r"\bapolog", r"\bexcuse me\b", r"\bforgive"),
    "greeting": (r"^\s*(hi|hello|hey|dear|greetings)\b",),
    "deference": (
        r"\bgreat\b",
        r"\bnice\b",
        r"\bgood (work|job|point|question)\b",
        r"\bwell done\b",
        r"\binteresting\b",
    ),
}
NEGATIVE = {
    "direct_question": (r"^\s*(why|what|how come|where|who)\b",),
    "you_first": (r"^\s*(you|u)\b",),
    "negativity": (
        r"\bwrong\b",
        r"\bbad\b",
        r"\bstupid\b",
        r"\bnonsense\b",
        r"\bridiculous\b",
        r"\bnever\b",
        r"\bno one\b",
        r"\bstop\b",
        r"\bidiot",
        r"\bcrap\b",
        r"\bactually\b",
        r"\breally\b",
        r"\bobviously\b",
    ),
}


def _count(text: str, patterns: tuple[str, ...]) -> int:
    lowered = text.lower()
    return sum(len(re.findall(p, lowered, flags=re.MULTILINE)) for p in patterns)


def _squash(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def _lexicon(text: str) -> float:
    good = sum(_count(text, p) for p in POSITIVE.values())
    bad = sum(_count(text, p) for p in NEGATIVE.values())
    return good - bad


def strategy_lexicon(record: dict[str, str]) -> float:
    """Every politeness strategy the lexicons hold, positive minus negative."""
    return _squash(_lexicon(record["request"]))


def gratitude_please(record: dict[str, str]) -> float:
    """Only thanks and "please": the two most visible markers."""
    text = record["request"]
    return _squash(_count(text, POSITIVE["gratitude"]) + _count(text, POSITIVE["please"]))


def hedges_only(record: dict[str, str]) -> float:
    """Only hedges and indirect requests."""
    return _squash(_count(record["request"], POSITIVE["hedge"]))


def negativity_only(record: dict[str, str]) -> float:
    """Only the negative markers, counted against the request."""
    return _squash(-sum(_count(record["request"], p) for p in NEGATIVE.values()))


def question_marks(record: dict[str, str]) -> float:
    """Fewer question marks reads as more polite: a weak proxy (a request is a question)."""
    return _squash(1.0 - record["request"].count("?"))


def words_per_sentence(record: dict[str, str]) -> float:
    """Longer sentences read as more elaborate: a proxy that knows no politeness."""
    sentences = [s for s in re.split(r"[.!?]+", record["request"]) if s.strip()]
    words = len(_WORD.findall(record["request"].lower()))
    return 1.0 - math.exp(-(words / max(1, len(sentences))) / 15.0)


# ---------------------------------------------------------------- planted defects


def lexicon_inverted(record: dict[str, str]) -> float:
    """The full lexicon, sign flipped: a planted defect that ranks rude above polite."""
    return 1.0 - strategy_lexicon(record)


def lexicon_noisy(record: dict[str, str]) -> float:
    """The full lexicon under noise fixed by the text (a quarter signal)."""
    digest = hashlib.sha256(record["request"].encode("utf-8")).digest()
    noise = int.from_bytes(digest[:8], "big") / 2**64
    return 0.25 * strategy_lexicon(record) + 0.75 * noise
