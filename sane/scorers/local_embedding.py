"""Embedding cosine metrics on the embedded sentence encoders: embed_minilm, embed_mpnet.

The score is the cosine similarity of the candidate's and the reference's
sentence embeddings (all-MiniLM-L6-v2 or all-mpnet-base-v2, mean pooled, unit
length). It is reported as is on a continuous -1..1 contract rather than
clipped or shifted to 0..1: the contract normalisation of the relations maps it
onto 0..1 anyway, and an honest -1..1 range keeps "unrelated" (about 0) apart
from "opposite". A batch encodes every distinct text once, in one list.
"""

from __future__ import annotations

import numpy as np

from sane.local.embeddings import encode, encoder
from sane.records import OutputContract
from sane.scorers.base import BuildContext, BuiltinConfig, Target, register_metric, require_runtime
from sane.scorers.local_fields import Pair, PairMetric

COSINE_CONTRACT = OutputContract(type="continuous", min=-1.0, max=1.0, higher_is_better=True)


class EmbeddingCosine(PairMetric):
    """Cosine similarity of sentence embeddings of candidate and reference."""

    encoder: str

    def __init__(self, config: BuiltinConfig, context: BuildContext) -> None:
        super().__init__(config, context)
        self.contract = COSINE_CONTRACT.model_copy()

    def load(self) -> None:
        encoder(self.encoder)

    def compute(self, pairs: list[Pair]) -> list[float]:
        texts = list(dict.fromkeys(text for pair in pairs for text in pair))
        vectors = dict(zip(texts, encode(self.encoder, texts), strict=True))
        return [float(np.dot(vectors[c], vectors[r])) for c, r in pairs]


class MiniLMCosine(EmbeddingCosine):
    metric = "embed_minilm"
    encoder = "all-minilm-l6-v2"


class MPNetCosine(EmbeddingCosine):
    metric = "embed_mpnet"
    encoder = "all-mpnet-base-v2"


@register_metric(MiniLMCosine.metric)
def _minilm(config: BuiltinConfig, context: BuildContext) -> Target:
    require_runtime("sentence_transformers", config)
    return MiniLMCosine(config, context)


@register_metric(MPNetCosine.metric)
def _mpnet(config: BuiltinConfig, context: BuildContext) -> Target:
    require_runtime("sentence_transformers", config)
    return MPNetCosine(config, context)
