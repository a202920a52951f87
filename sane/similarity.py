"""Text similarity between recipes: MiniLM sentence embeddings where the embedded model is
installed, difflib's ratio otherwise; the caller is told which (`choose_similarity`).

`sane compare` matches the recipes of two suites with it (sane.analyses.reproducibility), and
the library generator orders related scorers by it (sane.generators.library).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence

import numpy as np

from sane.errors import InputError, SaneError

EMBEDDING_MODEL = "all-minilm-l6-v2"
EMBEDDING_THRESHOLD = 0.7
"""MiniLM cosine at which two recipe texts count as the same recipe: paraphrases of one
instruction typically score above 0.75, different perturbations of one text below 0.6."""
LEXICAL_THRESHOLD = 0.6
"""difflib ratio at which two recipe texts count as the same recipe (fallback only)."""

Similarity = Callable[[Sequence[str], Sequence[str]], np.ndarray]


def lexical_similarity(a: Sequence[str], b: Sequence[str]) -> np.ndarray:
    """difflib ratio of every pair of lower-cased, whitespace-normalised texts."""

    def norm(text: str) -> str:
        return " ".join(text.lower().split())

    return np.array(
        [[difflib.SequenceMatcher(None, norm(x), norm(y)).ratio() for y in b] for x in a]
    ).reshape(len(a), len(b))


def embedding_similarity(a: Sequence[str], b: Sequence[str]) -> np.ndarray:
    """Cosine similarity of MiniLM sentence embeddings (raises if the model is missing)."""
    from sane.local.embeddings import encode

    vectors = encode(EMBEDDING_MODEL, list(a) + list(b))
    return vectors[: len(a)] @ vectors[len(a) :].T


def choose_similarity(method: str = "auto") -> tuple[str, Similarity, float]:
    """(label, function, threshold) for ``auto`` / ``embedding`` / ``lexical``.

    ``auto`` uses the embedded MiniLM model when it is installed and verified, and the
    lexical ratio otherwise.
    """
    lexical = (f"lexical:difflib-ratio>={LEXICAL_THRESHOLD}", lexical_similarity, LEXICAL_THRESHOLD)
    embedding = (
        f"embedding:{EMBEDDING_MODEL}-cosine>={EMBEDDING_THRESHOLD}",
        embedding_similarity,
        EMBEDDING_THRESHOLD,
    )
    if method == "lexical":
        return lexical
    if method not in {"auto", "embedding"}:
        raise InputError(
            None, "--similarity", f"unknown method {method!r} (auto, embedding, lexical)"
        )
    try:
        from sane.local.assets import resolve

        resolve(EMBEDDING_MODEL)
        import sentence_transformers  # noqa: F401
    except (ImportError, SaneError):
        if method == "embedding":
            raise InputError(
                None, "--similarity", f"the embedded model {EMBEDDING_MODEL} is not installed"
            ) from None
        return lexical
    return embedding
