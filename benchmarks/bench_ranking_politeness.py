"""A second ranking benchmark on real human labels: politeness (Stanford Politeness).

Why: `bench_ranking.py` found on QAGS that the tolerance floor (the least change a relation
check counts as a move) decides much of how well a suite ranks deterministic scorers as
people do, but that finding was read against QAGS's labels, so it cannot choose a floor by
itself. This benchmark asks the same question of another task, another suite and other
scorers, none of them seen while the floor was looked at: requests from Wikipedia talk pages
rated for politeness by five annotators (`../shared/data/politeness/`, read from there,
never copied into the project; its licence is in `../shared/data/README.md`).

Targets (`politeness_targets.py`) span the range: a lexicon of the politeness strategies of
Danescu-Niculescu-Mizil et al. (2013), partial lexicons, two proxies, and planted defects of
the full lexicon (inverted, noisy); the null scorers run beside them. A target's **human
agreement** is its Spearman's rho with the normalised politeness score on held-out requests
(not the suite's examples). The suite is derived by a strong model through the loopback
bridge (`../shared/tools/llm-loop-server.py`), replayed from `--strong-cache` (default
`benchmarks/data/ranking_politeness_strong/cache.db`); its replies were written by hand by
helpers playing a careful strong model, each request answered from its text alone.

It prints what `bench_ranking.py` prints for its suites: Spearman and Kendall with human
agreement for the pass rate and the default score, the null scorers' places, the labels'
split-half reliability, and the correlations with every case checked again under each
tolerance floor (the report's `tolerance_sensitivity`). Last line: JSON
``{"strong": {"rho_pass_rate", "rho_default_score", "constant_rank_fraction",
"constant_pass_rate", "floor_sensitivity"}}``.

    .venv/bin/python benchmarks/bench_ranking_politeness.py              (offline, replayed)
    .venv/bin/python benchmarks/bench_ranking_politeness.py --record-strong   (while a strong
        model answers ../shared/tools/llm-loop-server.py --port 8931)
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
from pathlib import Path

import yaml
from bench_ranking import (
    ROOT,
    floor_sensitivity,
    fresh,
    human_agreement,
    measure,
    sane,
    show,
    strong_suite,
    write_examples,
)

HERE = Path(__file__).resolve().parent
DATA = ROOT.parent / "shared" / "data" / "politeness" / "wikipedia.annotated.csv"
STRONG_CACHE = HERE / "data" / "ranking_politeness_strong" / "cache.db"
CRITERION = (
    "How polite the request is, as its reader would judge it: courtesy, deference and "
    "consideration for the person asked (thanks, please, indirect or hedged requests, "
    "apologies, greetings, acknowledging the reader) make it more polite; bluntness, direct or "
    "accusing questions, commands, criticism and negative or dismissive words make it less "
    "polite. Do not judge whether the request is reasonable, clear, well written or "
    "correctly spelled, nor its topic or length, except as they show courtesy or its lack."
)
TARGETS = ["strategy_lexicon", "gratitude_please", "hedges_only", "negativity_only",
           "question_marks", "words_per_sentence", "lexicon_inverted", "lexicon_noisy"]  # fmt: skip


def load(path: Path, examples: int, held_out: int, seed: int) -> tuple[list[dict], list[dict]]:
    """The suite's examples and the held-out labelled requests, disjoint, seeded."""
    rows = [
        {"request": r["Request"], "label": float(r["Normalized Score"])}
        for r in csv.DictReader(path.open(encoding="utf-8"))
    ]
    random.Random(seed).shuffle(rows)
    return [{"request": r["request"]} for r in rows[:examples]], rows[
        examples : examples + held_out
    ]


def write_spec(folder: Path, examples: list[dict]) -> Path:
    write_examples(folder, examples)
    spec = {
        "name": "request-politeness",
        "criterion": CRITERION,
        "fields": {"request": "a request one editor writes to another on a wiki talk page"},
        "scored_field": "request",
        "output": {"type": "continuous", "min": 0, "max": 1, "higher_is_better": True},
        "examples": "examples.jsonl",
        "targets": [
            {
                "name": ref.replace("_", "-"),
                "kind": "python",
                "ref": f"politeness_targets:{ref}",
                "deterministic": True,
            }
            for ref in TARGETS
        ],
    }
    path = folder / "spec.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "out" / "bench-ranking-politeness")
    parser.add_argument("--data", type=Path, default=DATA, help="wikipedia.annotated.csv")
    parser.add_argument("--strong-cache", type=Path, default=STRONG_CACHE)
    parser.add_argument("--examples", type=int, default=6, help="the suite's examples")
    parser.add_argument("--held-out", type=int, default=1500, help="labelled requests scored")
    parser.add_argument("--record-strong", action="store_true",
                        help="generate the suite through the bridge, recording its replies "
                        "at --strong-cache (a strong model must answer the bridge)")  # fmt: skip
    args = parser.parse_args(argv)
    examples, held_out = load(args.data, args.examples, args.held_out, seed=0)
    args.out.mkdir(parents=True, exist_ok=True)
    spec = write_spec(args.out / "spec", examples)
    suite = args.out / "strong.db"
    fresh(suite)  # built afresh, as bench_ranking's suites are
    if not strong_suite(spec, suite, args.strong_cache, record=args.record_strong):
        print(f"strong: no recording at {args.strong_cache} that replays; nothing to measure")
        return 1
    if args.record_strong:
        return 0
    sane("execute", str(suite), "--trust-suite-code")
    human, reliability = human_agreement(suite, {"wikipedia": held_out}, args.out)
    print(f"human agreement (Spearman, {len(held_out)} held-out Wikipedia requests):")
    for n in sorted(human, key=lambda n: -human[n]):
        print(f"  {n:24s} {human[n]:+.3f}")
    for set_name, r in reliability.items():
        print(f"  {set_name}: " + ("-" if r is None else r.sentence()))
    result = measure(suite, human)
    show("strong", result, human)
    summary = {
        "strong": {
            "rho_pass_rate": result["pass_rate"]["spearman"],
            "rho_default_score": result["default_score"]["spearman"],
            "constant_rank_fraction": result["constant_rank_fraction"],
            "constant_pass_rate": result["constant_pass_rate"],
            "floor_sensitivity": floor_sensitivity("strong", suite, human),
        }
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
