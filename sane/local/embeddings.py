"""Sentence and token embeddings from the embedded sentence-transformers models.

Embedding metrics score many short texts; the model is loaded once per process
from its verified local directory (never from a hub: the offline switches are
set before sentence-transformers is imported) and texts are encoded in lists,
which is several times faster than one at a time on a CPU.

Texts longer than the model's max_seq_length (256 word pieces for MiniLM, 384
for MPNet) are truncated by the model; that is a property of these metrics.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from sane.local.assets import resolve

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

log = logging.getLogger(__name__)

BATCH_SIZE = 32
OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


@dataclass
class LoadedEncoder:
    model: SentenceTransformer
    lock: threading.Lock
    load_seconds: float


_loaded: dict[str, LoadedEncoder] = {}
_loading = threading.Lock()


def encoder(name: str) -> LoadedEncoder:
    """The process-wide SentenceTransformer for an asset name, e.g. 'all-minilm-l6-v2'."""
    with _loading:
        if name not in _loaded:
            os.environ.update(OFFLINE_ENV)
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as transformers_logging

            transformers_logging.disable_progress_bar()

            path = resolve(name)
            started = time.perf_counter()
            model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
            seconds = time.perf_counter() - started
            log.info("loaded embedding model %s in %.1f s", name, seconds)
            _loaded[name] = LoadedEncoder(model, threading.Lock(), seconds)
        return _loaded[name]


def encode(name: str, texts: list[str], *, batch_size: int = BATCH_SIZE) -> np.ndarray:
    """Unit-length sentence embeddings, one row per text (float64)."""
    loaded = encoder(name)
    with loaded.lock:
        vectors = loaded.model.encode(
            texts,
            batch_size=batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
    return _unit_rows(np.asarray(vectors, dtype=np.float64))


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    """Re-normalise in float64 so cosines of identical texts are 1 up to 1e-15, not 1e-7."""
    return matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)


def token_embeddings(
    name: str, texts: list[str], *, batch_size: int = BATCH_SIZE
) -> list[np.ndarray]:
    """Contextual word-piece embeddings per text, without the [CLS]/[SEP] (or <s>/</s>) ends.

    Rows are unit length, so a matrix product gives cosine similarities.
    """
    loaded = encoder(name)
    with loaded.lock:
        outputs = loaded.model.encode(
            texts,
            batch_size=batch_size,
            output_value="token_embeddings",
            show_progress_bar=False,
        )
    result: list[np.ndarray] = []
    for tensor in outputs:
        matrix = np.asarray(tensor.detach().cpu().numpy(), dtype=np.float64)[1:-1]
        result.append(_unit_rows(matrix))
    return result
