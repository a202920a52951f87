"""Embedding throughput of the local encoders, batched vs one text at a time.

Why: the executor scores many variants per case, and local metrics implement
score_batch so that texts are encoded in lists. This prints the measured gain
on this machine. Run: .venv/bin/python benchmarks/bench_local_batching.py [N]
"""

from __future__ import annotations

import sys
import time

from sane.local.embeddings import encode, encoder

SENTENCES = [
    "The committee postponed the vote until next week because several members were ill.",
    "Bake the bread at 220 degrees for thirty minutes until the crust is golden.",
    "The new library opened downtown with a large collection of rare maps.",
    "Researchers found that the drug reduced symptoms in most of the patients studied.",
    "Heavy rain caused flooding on the main roads during the morning commute.",
    "The startup raised twenty million dollars to expand its delivery network.",
    "A summary must not contain claims that the source document does not support.",
    "The orchestra performed the symphony without a conductor for the first time.",
]


def _rate(name: str, texts: list[str], batched: bool, rounds: int = 3) -> float:
    """Best of `rounds` (texts per second): the machine is shared, the best run is the signal."""
    best = 0.0
    for _ in range(rounds):
        started = time.perf_counter()
        if batched:
            encode(name, texts)
        else:
            for text in texts:
                encode(name, [text])
        best = max(best, len(texts) / (time.perf_counter() - started))
    return best


def main(count: int = 128) -> None:
    texts = [f"{SENTENCES[i % len(SENTENCES)]} (item {i})" for i in range(count)]
    for name in ("all-minilm-l6-v2", "all-mpnet-base-v2"):
        started = time.perf_counter()
        encoder(name)
        load = time.perf_counter() - started
        encode(name, texts[:8])  # warm-up
        one = _rate(name, texts, batched=False)
        many = _rate(name, texts, batched=True)
        print(
            f"{name}: load {load:.1f} s, one-at-a-time {one:.0f} texts/s, "
            f"batched {many:.0f} texts/s, speed-up x{many / one:.1f} ({count} texts)"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 128)
