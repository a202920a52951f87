"""How long a `sane generate` run takes on an embedded model, from measured evaluation rates.

Why: an API model's cost is its price, an embedded model's is the wall time, and the dry run
gave only calls for it, so a newcomer learned that a qualification takes 17 minutes by
waiting 17 minutes. An embedded model's wall time is set by two rates (docs/embedded-runtime.md,
"Threads"; `benchmarks/bench_eval_rates.py` measures them on any CPU): prompt tokens evaluated
per second, and tokens generated per second. This module holds those rates as RECORDED on two
2-core machines (the fastest and the slowest measured), labelled as such, and turns the
estimate's token counts into a range. The prompt counts are the estimate's upper bound (an
embedded model is not sent a schema's text) and the completion lengths are assumed, so the
range is a guide to minutes or hours, not a measurement of this machine.
"""

from __future__ import annotations

from dataclasses import dataclass

from sane.pipeline.estimate import Estimate


@dataclass(frozen=True)
class Rates:
    """Tokens per second: prompt evaluation (every core) and generation (one token at a time)."""

    prompt_tok_s: float
    generate_tok_s: float


# Recorded with `llm.eval` on Qwen2.5-Coder-1.5B (docs/embedded-runtime.md, "Threads"):
# a 2-core EPYC Zen 4 (zen4 module) and a 2-core AVX2-only EPYC (haswell module).
QUALIFY_LIKE = "alignment"  # a qualification call is priced as one of this stage's votes
RECORDED_ON = "2-core EPYC Zen 4 (fast) and a 2-core AVX2-only EPYC (slow), 2026"
RATES: dict[str, tuple[Rates, Rates]] = {
    "local/qwen2.5-coder-1.5b": (Rates(105.0, 20.0), Rates(38.0, 6.2)),
}


def _seconds(prompt: int, completion: int, rates: Rates) -> float:
    return prompt / rates.prompt_tok_s + completion / rates.generate_tok_s


def wall_time(
    estimate: Estimate, qualify_calls: int = 0, oracle_models: list[str] | None = None
) -> tuple[float, float] | None:
    """(fast, slow) seconds for the stages run by a model with recorded rates, and for
    `qualify_calls` qualification calls per oracle model with recorded rates (priced like the
    run's votes); None when no stage runs on such a model."""
    fast = slow = 0.0
    timed = False
    for stage in estimate.stages:
        models = stage.model.split("+")
        local = [RATES[m] for m in models if m in RATES]
        if not local or not stage.calls:
            continue
        timed = True
        share = len(local) / len(models)  # votes are spread round-robin over the models
        prompt, completion = stage.prompt_tokens * share, stage.completion_tokens * share
        fast += _seconds(int(prompt), int(completion), local[0][0])
        slow += _seconds(int(prompt), int(completion), local[0][1])
    votes = next((s for s in estimate.stages if s.stage == QUALIFY_LIKE and s.calls), None)
    for model in dict.fromkeys(oracle_models or []):
        if model in RATES and qualify_calls and votes is not None:
            timed = True
            p = int(votes.prompt_tokens / votes.calls * qualify_calls)
            c = int(votes.completion_tokens / votes.calls * qualify_calls)
            fast += _seconds(p, c, RATES[model][0])
            slow += _seconds(p, c, RATES[model][1])
    return (fast, slow) if timed else None


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.0f} min" if seconds >= 60 else f"{seconds:.0f} s"


def wall_time_line(
    estimate: Estimate, qualify_calls: int = 0, oracle_models: list[str] | None = None
) -> str | None:
    """The dry run's line for embedded models, or None when none is used."""
    span = wall_time(estimate, qualify_calls, oracle_models)
    if span is None:
        return None
    fast, slow = span
    return (
        f"  embedded models' wall time, upper bound: about {_minutes(fast)} to {_minutes(slow)} "
        f"(from RECORDED rates on a {RECORDED_ON}, not this machine; "
        "benchmarks/bench_eval_rates.py measures yours)"
    )
