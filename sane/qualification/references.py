"""Reference scorers whose criterion is exact code, and the criteria they compute.

Each spec in `criteria/` states its rule word for word and the function here computes exactly
that rule, so the right answer to every panel question about a code edit is known: the
qualification asks an oracle such questions, the simulated oracle answers from them, and the
validity benchmark counts each fault of a reference as an invalid test that got through.
Reachable as python targets: `sane.qualification.references:number_fidelity` and so on.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sane._registry import Registry

Record = dict[str, str]
Scorer = Callable[[Record], float]

CRITERIA_DIR = Path(__file__).resolve().parent / "criteria"
WORD = re.compile(r"[A-Za-z]+")
NUMBER = re.compile(r"[0-9]+")


def number_fidelity(record: Record) -> float:
    """Share of the summary's numbers (digit runs) that also occur in the source; 1 if none."""
    numbers = NUMBER.findall(record["summary"])
    if not numbers:
        return 1.0
    source = set(NUMBER.findall(record["source"]))
    return sum(n in source for n in numbers) / len(numbers)


BANNED = (
    "leverage",
    "synergy",
    "utilize",
    "paradigm",
    "robust",
    "seamless",
    "holistic",
    "actionable",
)


def banned_words(record: Record) -> float:
    """1 / (1 + occurrences of the banned words, whole words, any case)."""
    hits = sum(word.lower() in BANNED for word in WORD.findall(record["reply"]))
    return 1.0 / (1.0 + hits)


def question_names(question: str) -> set[str]:
    """The question's words that start with a capital letter, its first word excluded."""
    return {word for word in WORD.findall(question)[1:] if word[0].isupper()}


def name_coverage(record: Record) -> float:
    """Share of the question's names that the answer repeats as whole words, same case; 1 if none."""
    names = question_names(record["question"])
    if not names:
        return 1.0
    return len(names & set(WORD.findall(record["answer"]))) / len(names)


@dataclass(frozen=True)
class Reference:
    """A reference scorer, the field it scores and the field it reads beside it, and the
    folder that holds its criterion's spec (`NAME.yaml`) and examples (`NAME.jsonl`)."""

    name: str
    score: Scorer
    scored: str
    context: str
    criteria: Path = CRITERIA_DIR

    @property
    def ref(self) -> str:
        """The python-target reference to the scorer (`module:function`)."""
        return f"{self.score.__module__}:{self.score.__name__}"

    @property
    def spec(self) -> Path:
        return self.criteria / f"{self.name}.yaml"

    @property
    def examples(self) -> Path:
        return self.criteria / f"{self.name}.jsonl"


REFERENCES: Registry[Reference] = Registry("reference scorer", group="sane.reference_scorers")
"""Every reference scorer (sane's three, and any another package registers): `sane qualify`
and the validity and exploit benchmarks ask them all."""


def register_reference(reference: Reference) -> Reference:
    return REFERENCES.register(reference.name)(reference)


register_reference(Reference("number_fidelity", number_fidelity, "summary", "source"))
register_reference(Reference("banned_words", banned_words, "reply", "question"))
register_reference(Reference("name_coverage", name_coverage, "answer", "question"))
