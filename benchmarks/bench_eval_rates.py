"""The embedded Qwen model's raw evaluation rates on this CPU: prompt batches and single tokens.

Why: the demo's CPU-seconds are mostly prompt evaluation (batches of 8-128 tokens on every
core) and generation (one token at a time on one thread), so these two rates set its floor
on a given CPU: a demo that evaluates P prompt tokens and generates G cannot cost less than
P x (prompt CPU-ms at batch 128) + G x (single-token CPU-ms). This calls `llm.eval` directly
on random tokens, with no prefix reuse, after a warm-up, and prints each rate.

Run:  .venv/bin/python benchmarks/bench_eval_rates.py [--tokens 512]

Last line: one JSON object with `module` (the llama.cpp CPU module loaded), and for each
thread count T in (all cores, 1) and batch B in (128, 64, 32, 16, 8): `prompt_tok_s_tT_bB`
and `prompt_cpu_ms_tT_bB`; then `single_tok_s_t1` and `single_cpu_ms_t1` (one token at a
time on one thread, as generation runs).
"""

from __future__ import annotations

import argparse
import json
import random
import time

BATCHES = (128, 64, 32, 16, 8)
SINGLE = 32  # single tokens evaluated after the prompt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=512, help="prompt tokens per rate")
    args = parser.parse_args()

    import llama_cpp

    from sane.local import cpu_build
    from sane.local.llama import load, physical_cores

    llm = load("local/qwen2.5-coder-1.5b").llm
    rng = random.Random(0)
    tokens = [rng.randrange(1000, 30000) for _ in range(args.tokens + SINGLE)]

    def evaluate(batch: int, count: int, start: int = 0) -> tuple[float, float]:
        """Tokens per second (wall) and CPU-ms per token of `count` tokens in `batch`-size steps."""
        wall, cpu = time.perf_counter(), time.process_time()
        for position in range(start, start + count, batch):
            llm.eval(tokens[position : position + batch])
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        return count / wall, 1000 * cpu / count

    def fresh() -> None:
        llm._ctx.kv_cache_clear()
        llm.n_tokens = 0

    figures: dict[str, object] = {"module": cpu_build.loaded_variant()}
    fresh()
    evaluate(128, 128)  # warm-up: the first call pays page faults and thread start-up
    for threads in (physical_cores(), 1):
        llama_cpp.llama_set_n_threads(llm.ctx, 1, threads)
        for batch in BATCHES:
            fresh()
            rate, cpu_ms = evaluate(batch, args.tokens)
            figures[f"prompt_tok_s_t{threads}_b{batch}"] = round(rate, 1)
            figures[f"prompt_cpu_ms_t{threads}_b{batch}"] = round(cpu_ms, 1)
            print(f"prompt, {threads} thread(s), batch {batch:3d}: {rate:6.1f} tok/s, "
                  f"{cpu_ms:5.1f} CPU-ms/token", flush=True)  # fmt: skip
    rate, cpu_ms = evaluate(1, SINGLE, start=args.tokens)  # after a full prompt, as generation
    figures["single_tok_s_t1"], figures["single_cpu_ms_t1"] = round(rate, 1), round(cpu_ms, 1)
    print(f"single tokens, 1 thread: {rate:.1f} tok/s, {cpu_ms:.1f} CPU-ms/token")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
