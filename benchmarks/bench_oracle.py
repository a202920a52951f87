"""Oracle benchmark: can this model tell which way a score moves? Exact ground truth, minutes.

Why: every validity decision that matters in a suite comes down to one question put to
the oracle, "compared with the original, does the changed text deserve a lower, higher
or the same score under this criterion?". Before spending an hour on
``bench_validity.py``, this measures the answer itself. The pairs are the validity
benchmark's reference criteria (``sane/qualification/criteria/``, computed exactly by
``sane.qualification.references``) crossed with the catalogue of code edits
(``sane.edits.OPERATORS``): each pair's right answer is the sign of the
reference's score change, so no human labels anything.

Each pair is asked as the blind panel asks a case (``vote_case_direction.j2``, through
``sane.panel.OraclePanel``), once as is and once with the two texts' roles exchanged.
It prints, per criterion and in all:

  accuracy              the answer as asked equals the right answer
  order_consistency     the two answers agree once the second is turned round
  consistent_accuracy   right answers among the order-consistent votes
  top_answer_share      share of the most frequent answer (1.0: a constant answer)
  accept_wrong_single   a claim the pair contradicts (e.g. "decrease" where the score
                        stays the same) that one answer as asked would accept / such claims
  accept_wrong_checked  the same, with the order check (both answers must fit)
  accept_right_checked  claims the pair supports that the order check accepts / such claims

A claim is one of decrease, increase, invariant; each pair tests all three. The last
line is one JSON object with these figures for all pairs, plus ``pairs``, ``calls``,
``wall_s`` and ``model``.

    .venv/bin/python benchmarks/bench_oracle.py                   # embedded Qwen, ~17 min
    .venv/bin/python benchmarks/bench_oracle.py --model openai/gpt-4o-mini
    .venv/bin/python benchmarks/bench_oracle.py --same 15 --no-vote-rationale  # 30 pairs
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import reference_scorers as refs

from sane.edits import OPERATORS, TransformError, TransformInput, apply_transform
from sane.inputs import load_examples, load_spec
from sane.llm import LLMClient, LLMSettings
from sane.panel.ballots import TEXTS_EXCHANGED, TURNED_ROUND, DirectionBallot
from sane.panel.oracle import OraclePanel
from sane.prompts import messages
from sane.records import Case, PairRelation, Question, Recipe, Requirement, ScorerSpec

MODEL = "local/qwen2.5-coder-1.5b"
ANSWERS = ("lower", "higher", "same")
CLAIMS = {"decrease": "lower", "increase": "higher", "invariant": "same"}


@dataclass(frozen=True)
class Pair:
    criterion: str
    operator: str
    spec: ScorerSpec
    case: Case
    recipe: Recipe
    label: str  # the right answer: the sign of the reference's change


def pairs(criteria: list[str]) -> list[Pair]:
    """Every (example, operator) whose edit changes the example's scored text."""
    found = []
    for criterion in criteria:
        spec, path = load_spec(refs.REFERENCES[criterion].spec)
        examples = load_examples(spec, path.parent / str(spec.examples))
        score = refs.REFERENCES[criterion].score
        for operator, instruction in OPERATORS.items():
            recipe = Recipe(
                id=f"probe-{operator}",
                capability_id="probe",
                requirement=Requirement.monotonicity,
                name=operator,
                instruction=instruction,
                variant_roles=["original", "perturbed"],
                relation=PairRelation(kind="decrease"),
                rationale="",
                transform=operator,
            )
            for index, example in enumerate(examples):
                text = example[spec.scored_field]
                edit = TransformInput(text, index, tuple(examples), spec.scored_field)
                try:
                    changed = apply_transform(operator, edit)
                except TransformError:
                    continue
                before, after = score(example), score({**example, spec.scored_field: changed})
                label = "same" if before == after else "lower" if after < before else "higher"
                case = Case(
                    id=f"{criterion}/{operator}/{index}",
                    recipe_id=recipe.id,
                    index=0,
                    example_index=index,
                    example=example,
                    variants={"original": text, "perturbed": changed},
                )
                found.append(Pair(criterion, operator, spec, case, recipe, label))
    return found


async def ask(panel: OraclePanel, pair: Pair) -> tuple[str, str] | None:
    """The answer as asked and the answer with the texts exchanged (turned round);
    None when the call failed (recorded as an error, never as an answer)."""
    context = {"spec": pair.spec, "recipe": pair.recipe, "case": pair.case}
    decision = await panel.decide(
        pair.case.id,
        Question.applicability,
        messages("vote_case_direction.j2", **context),
        DirectionBallot(frozenset({"lower"})),
        contrast=messages("vote_case_direction.j2", swap=True, **context),
    )
    vote = decision.votes[0]
    if vote.error is not None:
        return None
    raw = json.loads(vote.raw)
    return raw["as_asked"]["answer"], TURNED_ROUND[raw[TEXTS_EXCHANGED]["answer"]]


def figures(rows: list[tuple[Pair, tuple[str, str]]]) -> dict[str, float | int | None]:
    def share(hits: int, total: int) -> float | None:
        return round(hits / total, 3) if total else None

    consistent = [(p, a) for p, (a, b) in rows if a == b]
    wrong_claims = [(p, a, b, c) for p, (a, b) in rows for c in CLAIMS.values() if c != p.label]
    right_claims = [(p, a, b) for p, (a, b) in rows]
    answers = Counter(a for _, (a, _) in rows)
    return {
        "pairs": len(rows),
        "accuracy": share(sum(a == p.label for p, (a, _) in rows), len(rows)),
        "order_consistency": share(len(consistent), len(rows)),
        "consistent_accuracy": share(sum(a == p.label for p, a in consistent), len(consistent)),
        "top_answer_share": share(max(answers.values(), default=0), len(rows)),
        "accept_wrong_single": share(sum(a == c for _, a, _, c in wrong_claims), len(wrong_claims)),
        "accept_wrong_checked": share(
            sum(a == c == b for _, a, b, c in wrong_claims), len(wrong_claims)
        ),
        "accept_right_checked": share(
            sum(a == p.label == b for p, a, b in right_claims), len(right_claims)
        ),
    }


async def run(args: argparse.Namespace) -> dict:
    probe = pairs(args.criteria)
    if args.same is not None:  # every pair that moves, and a sample of those that do not
        unchanged = [p for p in probe if p.label == "same"]
        sample = random.Random(0).sample(unchanged, min(args.same, len(unchanged)))
        probe = [p for p in probe if p.label != "same" or p in sample]
    probe = probe[: args.limit]
    settings = LLMSettings(cache_path=args.out / "llm-cache.db", script_path=args.script)
    client = LLMClient(settings)
    panel = OraclePanel(
        client,
        [args.model],
        votes=1,
        temperature=args.temperature,
        rationale=args.vote_rationale,
    )
    started = time.perf_counter()
    answered = await asyncio.gather(*(ask(panel, p) for p in probe))
    wall = time.perf_counter() - started
    rows = [(p, a) for p, a in zip(probe, answered, strict=True) if a is not None]
    print(f"model {args.model}: {len(probe)} pairs, {len(probe) - len(rows)} failed calls")
    labels = Counter(p.label for p in probe)
    print("right answers: " + ", ".join(f"{k} {labels[k]}" for k in ANSWERS))
    print(f"{'criterion':<16} " + " ".join(f"{k:>20}" for k in figures([]) if k != "pairs"))
    for criterion in args.criteria:
        own = figures([r for r in rows if r[0].criterion == criterion])
        cells = " ".join(f"{'-' if v is None else v:>20}" for k, v in own.items() if k != "pairs")
        print(f"{criterion:<16} {cells}")
    confusion = Counter((p.label, a, b) for p, (a, b) in rows)
    print("right answer -> (as asked, exchanged and turned round): count")
    for (label, a, b), count in sorted(confusion.items()):
        print(f"  {label:>6} -> ({a}, {b}): {count}")
    result = {
        **figures(rows),
        "failed_calls": len(probe) - len(rows),
        "calls": 2 * len(probe),
        "wall_s": round(wall, 1),
        "model": args.model,
        "vote_rationale": args.vote_rationale,
    }
    print(json.dumps(result))
    return result


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default=MODEL, help="the oracle model (any litellm model)")
    parser.add_argument("--criteria", nargs="+", default=list(refs.REFERENCES))
    parser.add_argument("--temperature", type=float, default=0.0)
    parser.add_argument("--limit", type=int, help="the first N pairs only")
    parser.add_argument(
        "--same", type=int, help="all pairs whose score moves, and N (seed 0) of those that do not"
    )
    parser.add_argument(
        "--vote-rationale",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="each answer comes after a one-sentence rationale (--no-vote-rationale: alone)",
    )
    parser.add_argument("--out", type=Path, default=Path("out/bench-oracle"))
    parser.add_argument("--script", type=Path, help="scripted model's rules file (tests)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    return asyncio.run(run(args))


if __name__ == "__main__":
    main()
