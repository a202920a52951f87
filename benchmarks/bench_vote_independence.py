"""How independent are a decision's k votes? Asks one model k votes on each of n questions.

Why: a majority of k votes corrects an oracle's errors only as far as the votes are separate
samples. Each vote now goes out as its own request with a seed of its own
(sane.panel.oracle.vote_seed); on a deterministic model (temperature 0, or a server that
ignores the seed) k votes are still one answer counted k times. This measures it on a model:
the yes/no alignment questions of the quick qualification (exact keys, sane.qualification),
k votes each, all asked (not sequential). It prints the share of decisions whose votes are
not all the same, the votes' pairwise agreement, and the `correlation` of the validity
curve this corresponds to (the chance that a decision's votes are one draw repeated,
estimated from the agreement the vote accuracy alone would give).

    .venv/bin/python benchmarks/bench_vote_independence.py --model local/qwen2.5-coder-1.5b \
        --questions 20 --votes 3

Last line: JSON with `decisions`, `votes`, `differ_share`, `pairwise_agreement`,
`vote_accuracy`, `correlation_estimate`.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import tempfile
from pathlib import Path

from sane.llm import LLMClient, LLMSettings
from sane.panel.oracle import OraclePanel
from sane.prompts import messages
from sane.qualification.qualify import questions, reference_spec
from sane.records import Decision, Question, RunConfig


async def ask(model: str, n: int, k: int, cache: Path) -> list[tuple[bool, list[Decision]]]:
    """(keyed answer, the k votes' decisions) for n alignment questions, half of them keyed
    yes and half no (a model that leans one way agrees with itself more on one side)."""
    claims = [item for item in questions(model, quick=True) if not item.direction]
    right = [item for item in claims if item.truth is True]
    wrong = [item for item in claims if item.truth is False]
    items = [item for pair in zip(right, wrong, strict=False) for item in pair][:n]
    client = LLMClient(LLMSettings(cache_path=cache, timeout_s=1800))
    temperature = RunConfig.model_fields["oracle_temperature"].default
    panel = OraclePanel(client, [model], votes=k, temperature=temperature, sequential=False)
    found = []
    try:
        for item in items:
            prompt = messages(item.template, spec=reference_spec(item.criterion), recipe=item.recipe,
                              relation_json=item.recipe.relation.model_dump_json())  # fmt: skip
            decision = await panel.decide(item.subject, Question.alignment, prompt)
            found.append((bool(item.truth), [vote.decision for vote in decision.votes]))
    finally:
        await client.aclose()
        client.close()
    return found


def figures(found: list[tuple[bool, list[Decision]]]) -> dict[str, float | int]:
    """The share of decisions with differing votes, pairwise agreement, and the correlation it
    implies: agreement = c + (1 - c) * (p^2 + (1 - p)^2) for vote accuracy p."""
    answered = [
        (truth, [d for d in votes if d is not Decision.unresolved]) for truth, votes in found
    ]
    differ = sum(len(set(votes)) > 1 for _, votes in answered)
    pairs = [(a, b) for _, votes in answered for a, b in itertools.combinations(votes, 2)]
    agreement = sum(a == b for a, b in pairs) / len(pairs) if pairs else float("nan")
    right = [(d is Decision.yes) == truth for truth, votes in answered for d in votes]
    p = sum(right) / len(right) if right else float("nan")
    chance = p * p + (1 - p) * (1 - p)
    correlation = (agreement - chance) / (1 - chance) if chance < 1 else float("nan")
    return {
        "decisions": len(found),
        "votes": sum(len(v) for _, v in answered),
        "differ_share": round(differ / len(found), 3) if found else float("nan"),
        "pairwise_agreement": round(agreement, 3),
        "vote_accuracy": round(p, 3),
        "correlation_estimate": round(min(1.0, max(0.0, correlation)), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="local/qwen2.5-coder-1.5b")
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--votes", type=int, default=3)
    parser.add_argument("--cache", type=Path, help="LLM cache (default: a fresh temporary one)")
    options = parser.parse_args()
    cache = options.cache or Path(tempfile.mkdtemp()) / "cache.db"
    found = asyncio.run(ask(options.model, options.questions, options.votes, cache))
    for truth, votes in found:
        print(f"keyed {'yes' if truth else 'no '}: {' '.join(d.value for d in votes)}")
    print(json.dumps({"model": options.model, **figures(found)}))


if __name__ == "__main__":
    main()
