"""Built-in lexical metrics: ROUGE-L, BLEU, chrF and SQuAD-style token F1.

Each compares the spec's scored field (the candidate) with a reference field of
the same record, on a 0..1 higher-is-better contract. They are deterministic,
so the executor scores them once and batches them. The heavy lifting is done by
rouge-score and sacrebleu (imported on first use: rouge-score pulls in nltk and scipy,
a second of start-up for every command otherwise); token F1 is the few lines of the SQuAD
script.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from sane.errors import InputError, ScorerError
from sane.records import OutputContract
from sane.scorers.base import BuildContext, BuiltinConfig, Target, register_metric

Compare = Callable[[str, str], float]
"""(candidate, reference) -> score in [0, 1]."""

UNIT_CONTRACT = OutputContract(type="continuous", min=0.0, max=1.0, higher_is_better=True)


@cache
def _rouge() -> Any:
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)


def rouge_l(candidate: str, reference: str) -> float:
    """ROUGE-L F-measure."""
    return _rouge().score(reference, candidate)["rougeL"].fmeasure


def bleu(candidate: str, reference: str) -> float:
    """Sentence BLEU (sacrebleu, effective order), scaled to 0..1."""
    import sacrebleu

    return sacrebleu.sentence_bleu(candidate, [reference]).score / 100.0


def chrf(candidate: str, reference: str) -> float:
    """Sentence chrF (sacrebleu), scaled to 0..1."""
    import sacrebleu

    return sacrebleu.sentence_chrf(candidate, [reference]).score / 100.0


_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)


def _squad_tokens(text: str) -> list[str]:
    text = _ARTICLES.sub(" ", text.lower().translate(_PUNCTUATION))
    return text.split()


def token_f1(candidate: str, reference: str) -> float:
    """SQuAD token F1 after lower-casing and removing punctuation and articles."""
    cand, ref = _squad_tokens(candidate), _squad_tokens(reference)
    if not cand or not ref:
        return float(cand == ref)
    overlap = sum((Counter(cand) & Counter(ref)).values())
    if overlap == 0:
        return 0.0
    precision, recall = overlap / len(cand), overlap / len(ref)
    return 2 * precision * recall / (precision + recall)


@dataclass
class LexicalMetric:
    """A reference-based metric over two fields of a record."""

    name: str
    metric: str
    compare: Compare
    candidate_field: str
    reference_field: str
    contract: OutputContract = field(default_factory=UNIT_CONTRACT.model_copy)
    deterministic: bool = True

    @property
    def fields(self) -> tuple[str, ...]:
        return (self.candidate_field, self.reference_field)

    def _one(self, record: dict[str, str]) -> float:
        missing = [f for f in self.fields if f not in record]
        if missing:
            raise ScorerError(f"{self.name}: record lacks field(s) {missing}")
        return float(self.compare(record[self.candidate_field], record[self.reference_field]))

    async def score(self, record: dict[str, str], repeat: int = 0) -> float:
        return self._one(record)

    async def score_batch(self, records: list[dict[str, str]]) -> list[float]:
        return [self._one(record) for record in records]


def _factory(metric: str, compare: Compare) -> Callable[[BuiltinConfig, BuildContext], Target]:
    def build(config: BuiltinConfig, context: BuildContext) -> Target:
        where = f"targets.{config.name}.reference_field"
        spec = context.spec
        reference = config.reference_field
        if not reference:
            raise InputError("spec", where, f"builtin metric '{metric}' needs a reference_field")
        if reference not in spec.fields:
            raise InputError(
                "spec", where, f"'{reference}' is not one of fields {sorted(spec.fields)}"
            )
        if reference == spec.scored_field:
            raise InputError(
                "spec", where, f"'{reference}' is the scored field; a metric needs another field"
            )
        return LexicalMetric(
            name=config.name,
            metric=metric,
            compare=compare,
            candidate_field=spec.scored_field,
            reference_field=reference,
        )

    return build


METRICS: dict[str, Compare] = {
    "rouge_l": rouge_l,
    "bleu": bleu,
    "chrf": chrf,
    "token_f1": token_f1,
}

for _name, _compare in METRICS.items():
    register_metric(_name)(_factory(_name, _compare))
