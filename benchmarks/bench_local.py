"""The embedded runtime: `sane demo` cold and replayed, prefix reuse on and off, grammar cost.

Why: the offline default must run on a two-core machine in minutes, so this
measures where the embedded models spend their time. Each demo runs in a
child process with a fresh LLM cache (its CPU-seconds and peak memory are the
child's own), then replays from that cache. With `--reuse-off` the demo also
runs with prefix reuse disabled and the two suites are compared: the fixed
evaluation layout promises identical answers either way.

    .venv/bin/python benchmarks/bench_local.py [--out DIR] [--panel contrastive] [--reuse-off]
                                               [--vote-rationale] [--seed N] [--no-grammar-probe]

The last line is one JSON object: prompt_tok_s, gen_tok_s, prefix_hit_rate,
demo_wall_s, demo_cpu_s, replay_wall_s, peak_rss_gb (in GiB, units of 2**30 bytes, as every
"GB" it prints: the child's ru_maxrss), prefix_state_peak_mb (the most
bytes of saved prefix states held at once; and the reuse-off
figures and per-task CPU-seconds when measured).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sane.demo import DemoPlan  # the plan only: the pipeline loads in the child

MODEL = "local/qwen2.5-coder-1.5b"


def child(out_dir: Path, cache: Path, stats_path: Path, plan_json: str) -> None:
    """Run the demo in this process and write the embedded models' own accounting."""
    from dataclasses import asdict

    from sane.demo import DemoPlan, run_demo
    from sane.llm import LLMSettings
    from sane.llm._local import usage_by_task
    from sane.local import llama

    plan = DemoPlan.model_validate_json(plan_json)
    result = run_demo(out_dir, plan=plan, llm=LLMSettings(cache_path=cache))
    stats = {
        "tasks": {task: asdict(usage) for task, usage in sorted(usage_by_task.items())},
        "prefix": {name: asdict(s) for name, s in llama.prefix_stats().items()},
        "prefix_state_peak_mb": round(llama.prefix_budget.peak / 2**20, 1),
        "funnel": result.report.validity.model_dump(mode="json"),
    }
    stats_path.write_text(json.dumps(stats, indent=2))


def run_child(out_dir: Path, cache: Path, *, reuse: bool, plan: DemoPlan) -> dict:
    """One demo in a fresh process: wall, CPU-seconds and peak RSS of that process alone."""
    stats_path = out_dir / "bench_stats.json"
    env = dict(os.environ, SANE_LOCAL_PREFIX_REUSE="1" if reuse else "0")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            __file__,
            "--child",
            str(out_dir),
            str(cache),
            str(stats_path),
            plan.model_dump_json(),
        ],
        check=True,
        env=env,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    stats = json.loads(stats_path.read_text())
    stats.update(
        wall_s=wall,
        cpu_s=(after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
        # ru_maxrss of children is the largest child so far, in KiB on Linux
        peak_rss_gb=after.ru_maxrss / 2**20,
    )
    return stats


def totals(stats: dict) -> dict[str, float]:
    tasks = stats["tasks"].values()
    prompt = sum(t["prompt_tokens"] for t in tasks)
    reused = sum(t["reused_tokens"] for t in tasks)
    prefill_s = sum(t["prefill_s"] for t in tasks)
    generated = sum(t["completion_tokens"] for t in tasks)
    generate_s = sum(t["generate_s"] for t in tasks)
    return {
        "calls": sum(t["calls"] for t in tasks),
        "prompt_tokens": prompt,
        "evaluated_prompt_tokens": prompt - reused,
        "completion_tokens": generated,
        "prompt_tok_s": (prompt - reused) / prefill_s if prefill_s else 0.0,
        "gen_tok_s": generated / generate_s if generate_s else 0.0,
        "prefix_hit_rate": reused / prompt if prompt else 0.0,
        "model_cpu_s": sum(t["cpu_s"] for t in tasks),
    }


def print_tasks(label: str, stats: dict) -> dict[str, float]:
    print(
        f"\n{label}: {stats['wall_s']:.1f} s wall, {stats['cpu_s']:.1f} CPU-s, "
        f"peak {stats['peak_rss_gb']:.2f} GB"
    )
    print(
        f"{'task':<28}{'calls':>6}{'CPU-s/call':>12}{'prompt tok':>12}{'reused':>9}{'gen tok':>9}"
    )
    per_call = {}
    for task, t in stats["tasks"].items():
        per_call[task] = t["cpu_s"] / t["calls"] if t["calls"] else 0.0
        reused = t["reused_tokens"] / t["prompt_tokens"] if t["prompt_tokens"] else 0.0
        print(
            f"{task:<28}{t['calls']:>6}{per_call[task]:>12.2f}{t['prompt_tokens']:>12}"
            f"{reused:>9.0%}{t['completion_tokens']:>9}"
        )
    figures = totals(stats)
    print("totals: " + ", ".join(f"{k} {v:.3g}" for k, v in figures.items()))
    return per_call


def grammar_probe() -> dict[str, float]:
    """Generated tokens per second for one structured answer, with and without the grammar."""
    from sane.local import llama

    schema = {
        "type": "object",
        "properties": {"rationale": {"type": "string"}, "decision": {"enum": ["yes", "no"]}},
        "required": ["rationale", "decision"],
    }
    messages = [
        {
            "role": "user",
            "content": (
                "Is 'The cat sat on the mat.' a faithful summary of 'A cat was sitting on a mat.'? "
                'Return {"rationale": "one short sentence", "decision": "yes" or "no"} as JSON.'
            ),
        }
    ]
    rates = {}
    for label, with_schema in (("grammar", schema), ("free", None)):
        reply = llama.chat(MODEL, messages, json_schema=with_schema, max_tokens=96)
        rates[f"gen_tok_s_{label}"] = reply.completion_tokens / reply.generate_s
        print(
            f"grammar probe ({label}): {reply.completion_tokens} tokens, "
            f"{rates[f'gen_tok_s_{label}']:.1f} tok/s: {reply.text[:80]!r}"
        )
    return rates


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None, help="folder for suites and caches")
    parser.add_argument("--reuse-off", action="store_true", help="also run with reuse off")
    parser.add_argument("--no-grammar-probe", action="store_true")
    parser.add_argument(
        "--panel", default=DemoPlan().panel, help="the demo's panel mode (default: the demo's own)"
    )
    parser.add_argument(
        "--vote-rationale",
        action=argparse.BooleanOptionalAction,
        default=DemoPlan().vote_rationale,
        help="votes write a rationale before their answer (default: the demo's own)",
    )
    parser.add_argument(
        "--seed", type=int, default=DemoPlan().seed, help="the demo's generation seed"
    )
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        out_dir, cache, stats_path, plan_json = args.child
        child(Path(out_dir), Path(cache), Path(stats_path), plan_json)
        return
    root = args.out or Path(tempfile.mkdtemp(prefix="bench-local-"))
    root.mkdir(parents=True, exist_ok=True)
    print(f"suites, reports and caches in {root}")
    result: dict[str, object] = {}
    plan = DemoPlan(panel=args.panel, vote_rationale=args.vote_rationale, seed=args.seed)

    cold = run_child(root / "on", root / "on-cache.db", reuse=True, plan=plan)
    per_call = print_tasks("demo, fresh cache, prefix reuse on", cold)
    figures = totals(cold)
    replay = run_child(root / "replay", root / "on-cache.db", reuse=True, plan=plan)
    print(
        f"\nreplay from the cache: {replay['wall_s']:.1f} s wall, "
        f"{replay['peak_rss_gb']:.2f} GB peak"
    )
    result.update(
        prompt_tok_s=round(figures["prompt_tok_s"], 1),
        gen_tok_s=round(figures["gen_tok_s"], 2),
        prefix_hit_rate=round(figures["prefix_hit_rate"], 3),
        demo_wall_s=round(cold["wall_s"], 1),
        demo_cpu_s=round(cold["cpu_s"], 1),
        replay_wall_s=round(replay["wall_s"], 1),
        peak_rss_gb=round(max(cold["peak_rss_gb"], replay["peak_rss_gb"]), 2),
        prefix_state_peak_mb=cold["prefix_state_peak_mb"],
        llm_calls=figures["calls"],
        prompt_tokens=figures["prompt_tokens"],
        completion_tokens=figures["completion_tokens"],
        cpu_s_per_call={task: round(v, 2) for task, v in per_call.items()},
    )
    if args.reuse_off:
        off = run_child(root / "off", root / "off-cache.db", reuse=False, plan=plan)
        print_tasks("demo, fresh cache, prefix reuse off", off)
        from sane.suites.content import content_differences

        differences = content_differences(root / "on" / "suite.db", root / "off" / "suite.db")
        same = not differences
        print(f"reuse on and off generated identical suites: {same} {differences}")
        result.update(
            reuse_off_demo_wall_s=round(off["wall_s"], 1),
            reuse_off_demo_cpu_s=round(off["cpu_s"], 1),
            reuse_off_prompt_tok_s=round(totals(off)["prompt_tok_s"], 1),
            identical_suites_reuse_on_off=same,
        )
    if not args.no_grammar_probe:
        result.update({k: round(v, 2) for k, v in grammar_probe().items()})
    print(json.dumps(result))


if __name__ == "__main__":
    main()
