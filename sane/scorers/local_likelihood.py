"""likelihood_gem: GEM-style pointwise mutual information on a local base LM.

GEM (Xu et al., 2025; the token / autoregression / direct-KL corner of the
design framework in the scoring-rules paper, Example 4.2) scores a candidate x
against a reference y by log p(y | x) - log p(y): how much more predictable the
reference becomes once the model has read the candidate. We average it per
reference token (so long and short references are comparable) and compute both
terms with the same framing template (sane/local/templates/gem_prefix.j2), the
marginal with the candidate slot empty, so that an unrelated candidate scores
about 0 nats per token.

Contract: the per-token PMI d (nats) is unbounded, so it is mapped onto 0..1
by the monotone logistic squash  score = 1 / (1 + exp(-d / 0.5)): 0.5 means
"the candidate tells the model nothing about the reference", d = +1 nat/token
gives 0.88, d = -1 gives 0.12. Order is preserved exactly, nothing is clipped.

The base LM is Gemma-3-270M (`gemma3-270m`); `model: local/<name>` overrides it.
"""

from __future__ import annotations

import numpy as np

from sane.local.likelihood import DEFAULT_BASE_LM, continuation_logprobs
from sane.local.llama import load, model_name
from sane.local.templating import render
from sane.records import OutputContract
from sane.scorers.base import BuildContext, BuiltinConfig, Target, register_metric, require_runtime
from sane.scorers.local_fields import Pair, PairMetric

SQUASH_SCALE = 0.5  # nats per token that move the score from 0.5 to expit(1) = 0.73
PREFIX_TEMPLATE = "gem_prefix.j2"
UNIT_CONTRACT = OutputContract(type="continuous", min=0.0, max=1.0, higher_is_better=True)


def squash(pmi_per_token: float) -> float:
    """The documented monotone map of per-token PMI onto 0..1 (scipy loads here, not when
    the scorer registry is read: a dry run must start in a second or two)."""
    from scipy.special import expit

    return float(expit(pmi_per_token / SQUASH_SCALE))


class GemLikelihood(PairMetric):
    metric = "likelihood_gem"

    def __init__(self, config: BuiltinConfig, context: BuildContext) -> None:
        super().__init__(config, context)
        self.contract = UNIT_CONTRACT.model_copy()
        self.model = model_name(config.model) if config.model else DEFAULT_BASE_LM

    def load(self) -> None:
        load(self.model, logits_all=True)

    def _mean_logprob(self, candidate: str, reference: str) -> float:
        prefix = render(PREFIX_TEMPLATE, candidate=candidate)
        return float(np.mean(continuation_logprobs(prefix, " " + reference, model=self.model)))

    def pmi(self, candidate: str, reference: str, marginal: float | None = None) -> float:
        """Per-token log p(reference | candidate) - log p(reference), in nats."""
        if marginal is None:
            marginal = self._mean_logprob("", reference)
        return self._mean_logprob(candidate, reference) - marginal

    def compute(self, pairs: list[Pair]) -> list[float]:
        marginals = {ref: self._mean_logprob("", ref) for ref in dict.fromkeys(r for _, r in pairs)}
        return [squash(self.pmi(c, r, marginals[r])) for c, r in pairs]


@register_metric(GemLikelihood.metric)
def _gem(config: BuiltinConfig, context: BuildContext) -> Target:
    require_runtime("llama_cpp", config)
    return GemLikelihood(config, context)
