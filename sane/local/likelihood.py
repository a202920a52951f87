"""Token log-probabilities of a continuation given a prefix, on a local base LM.

Likelihood metrics (GEM: log p(y | x) - log p(y)) need the model's probability
of a fixed text, not a sample from it. llama-cpp-python with `logits_all=True`
gives the logits at every position of one forward pass; we read the log-softmax
of each continuation token from the position before it. The continuation is
tokenized on its own and appended to the prefix's tokens, so the same
continuation is the same token sequence under every prefix, which a difference
of log-likelihoods requires.

The default base LM is Gemma-3-270M (a base model, not instruction-tuned: its
likelihoods describe text, not a chat persona).
"""

from __future__ import annotations

import numpy as np

from sane.errors import ScorerError
from sane.local.llama import N_CTX, load

DEFAULT_BASE_LM = "gemma3-270m"
ROWS_PER_STEP = 64  # log-softmax over a 262k vocabulary, a few rows at a time


def _log_softmax_at(logits: np.ndarray, tokens: np.ndarray) -> np.ndarray:
    """log p(tokens[i]) under logits[i], computed stably in float64."""
    rows = logits.astype(np.float64)
    top = rows.max(axis=1, keepdims=True)
    log_norm = top[:, 0] + np.log(np.exp(rows - top).sum(axis=1))
    return rows[np.arange(len(tokens)), tokens] - log_norm


def continuation_logprobs(
    prefix: str, continuation: str, *, model: str = DEFAULT_BASE_LM
) -> list[float]:
    """log p(t_i | prefix, t_<i) for each token t_i of `continuation` (natural log).

    The prefix always starts with the model's BOS token, so an empty prefix
    gives the continuation's marginal likelihood. Raises ScorerError for an
    empty continuation or one that does not fit the context window.
    """
    loaded = load(model, logits_all=True)
    llm = loaded.llm
    context = llm.tokenize(prefix.encode("utf-8"), add_bos=True, special=False)
    if not context or context[0] != llm.token_bos():
        context = [llm.token_bos(), *context]
    target = llm.tokenize(continuation.encode("utf-8"), add_bos=False, special=False)
    if not target:
        raise ScorerError("likelihood: the continuation has no tokens")
    tokens = context + target
    if len(tokens) > N_CTX:
        raise ScorerError(
            f"likelihood: prefix + continuation are {len(tokens)} tokens, over the {N_CTX} context"
        )
    start = len(context)
    logprobs: list[float] = []
    with loaded.lock:
        llm.reset()
        llm.eval(tokens)
        scores = llm.scores
        for offset in range(start, len(tokens), ROWS_PER_STEP):
            stop = min(offset + ROWS_PER_STEP, len(tokens))
            # logits at position p predict token p + 1
            rows = scores[offset - 1 : stop - 1]
            logprobs.extend(_log_softmax_at(rows, np.asarray(tokens[offset:stop])).tolist())
    return logprobs
