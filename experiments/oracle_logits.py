"""Does the embedded oracle's answer depend on which text is which? Its answer logits, debiased.

`benchmarks/bench_oracle.py` reads the oracle's sampled answer to the blind direction
question, and the embedded 1.5B model answers "lower" to everything. This asks whether
a signal hides under that position bias: for each pair of the oracle benchmark
(exact ground truth: a reference criterion and a code edit), the reply is started as
`{"rationale": "", "answer": "` and the next-token log-probabilities of "lower",
"higher" and "same" are read, as asked and with the texts' roles exchanged.

  d = [log p(lower) - log p(higher)] as asked - the same with the texts exchanged

A constant bias cancels in d; a model that reads the texts gives d > 0 for a pair whose
right answer is "lower", d < 0 for "higher" and d near 0 for "same". It prints d per pair
and, as the last line, one JSON object: AUC of d for lower against same and lower against
higher, AUC of the "same" margin for unchanged against changed pairs (0.5 = chance), the
mean d per label, `pairs` and `wall_s`. Local models only (it needs logits).

    .venv/bin/python experiments/oracle_logits.py [--same 8] [--model local/qwen2.5-coder-1.5b]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import mannwhitneyu

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import bench_oracle  # the benchmark's pairs, from its folder

from sane.local import llama
from sane.prompts import messages

ANSWERS = ["lower", "higher", "same"]
REPLY_START = '{"rationale": "", "answer": "'


def auc(positives: list[float], negatives: list[float]) -> float | None:
    """P(a positive scores above a negative): 0.5 is chance."""
    if not positives or not negatives:
        return None
    return float(mannwhitneyu(positives, negatives).statistic) / (len(positives) * len(negatives))


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=bench_oracle.MODEL)
    parser.add_argument("--same", type=int, default=8, help="unchanged pairs to sample (seed 0)")
    args = parser.parse_args(argv)
    pairs = bench_oracle.pairs(["banned_words", "name_coverage", "number_fidelity"])
    moved = [p for p in pairs if p.label != "same"]
    unchanged = [p for p in pairs if p.label == "same"]
    chosen = moved + random.Random(0).sample(unchanged, min(args.same, len(unchanged)))
    started = time.perf_counter()
    rows = []
    for pair in chosen:
        context = {"spec": pair.spec, "recipe": pair.recipe, "case": pair.case}
        asked, swapped = (
            llama.next_token_logprobs(
                args.model,
                messages("vote_case_direction.j2", swap=swap, **context),
                REPLY_START,
                ANSWERS,
            )
            for swap in (False, True)
        )
        d = (asked["lower"] - asked["higher"]) - (swapped["lower"] - swapped["higher"])
        same_margin = (asked["same"] + swapped["same"]) / 2 - (
            max(asked["lower"], asked["higher"]) + max(swapped["lower"], swapped["higher"])
        ) / 2
        rows.append((pair.label, d, same_margin))
        print(
            f"{pair.label:6s} {pair.criterion:16s} {pair.operator:20s} d={d:+.2f} "
            f"same_margin={same_margin:+.2f} top as asked={max(asked, key=asked.get)} "
            f"exchanged={max(swapped, key=swapped.get)}",
            flush=True,
        )
    by_label = {label: [d for lab, d, _ in rows if lab == label] for label in ANSWERS}
    result = {
        "pairs": len(rows),
        "auc_d_lower_vs_same": auc(by_label["lower"], by_label["same"]),
        "auc_d_lower_vs_higher": auc(by_label["lower"], by_label["higher"]),
        "auc_same_margin_unchanged_vs_changed": auc(
            [m for lab, _, m in rows if lab == "same"], [m for lab, _, m in rows if lab != "same"]
        ),
        "mean_d": {k: float(np.mean(v)) if v else None for k, v in by_label.items()},
        "wall_s": round(time.perf_counter() - started, 1),
        "model": args.model,
    }
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
