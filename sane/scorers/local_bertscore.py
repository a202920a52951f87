"""bertscore_minilm: BERTScore-style greedy token matching on MiniLM token embeddings.

Each word piece of the candidate is matched to its most similar word piece of
the reference (precision) and vice versa (recall), on the contextual token
embeddings of all-MiniLM-L6-v2 without [CLS]/[SEP]; the score is their F1
(Zhang et al., 2019, without idf weighting or baseline rescaling). A token's
best cosine is floored at 0 so precision and recall stay in 0..1 and F1 is well
defined: the contract is continuous 0..1. An empty candidate (or reference)
matches nothing and scores 0; two empty texts have nothing to compare and are
a ScorerError.
"""

from __future__ import annotations

import numpy as np

from sane.errors import ScorerError
from sane.local.embeddings import encoder, token_embeddings
from sane.records import OutputContract
from sane.scorers.base import BuildContext, BuiltinConfig, Target, register_metric, require_runtime
from sane.scorers.local_fields import Pair, PairMetric

UNIT_CONTRACT = OutputContract(type="continuous", min=0.0, max=1.0, higher_is_better=True)


def greedy_f1(candidate: np.ndarray, reference: np.ndarray) -> float:
    """F1 of greedy cosine matching between two sets of unit-length token vectors."""
    if len(candidate) == 0 or len(reference) == 0:
        if len(candidate) == len(reference):
            raise ScorerError("bertscore: both texts are empty")
        return 0.0
    similarity = candidate @ reference.T
    precision = float(np.clip(similarity.max(axis=1), 0.0, None).mean())
    recall = float(np.clip(similarity.max(axis=0), 0.0, None).mean())
    if precision + recall == 0.0:
        return 0.0
    return min(1.0, 2 * precision * recall / (precision + recall))


class MiniLMBertScore(PairMetric):
    metric = "bertscore_minilm"
    encoder = "all-minilm-l6-v2"

    def __init__(self, config: BuiltinConfig, context: BuildContext) -> None:
        super().__init__(config, context)
        self.contract = UNIT_CONTRACT.model_copy()

    def load(self) -> None:
        encoder(self.encoder)

    def compute(self, pairs: list[Pair]) -> list[float]:
        texts = list(dict.fromkeys(text for pair in pairs for text in pair))
        tokens = dict(zip(texts, token_embeddings(self.encoder, texts), strict=True))
        return [greedy_f1(tokens[c], tokens[r]) for c, r in pairs]


@register_metric(MiniLMBertScore.metric)
def _bertscore(config: BuiltinConfig, context: BuildContext) -> Target:
    require_runtime("sentence_transformers", config)
    return MiniLMBertScore(config, context)
