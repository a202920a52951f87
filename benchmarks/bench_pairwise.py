"""Comparative judges with planted defects: does the pairwise audit find every planted bias,
and nothing on a judge that has none? And how well do comparative scorers agree with human
pairwise verdicts?

Data. NQ-301 (`../shared/data/openqa_nq301/NQ301_human.tsv`, Kamalloo et al. 2023; read
from there at run time, never copied into the project): several model answers to each
Natural Questions question, each judged Acceptable or not by people. Two answers to the same
question, one acceptable and one not, make a pair with a human verdict (the acceptable one
is better); each pair is shown in a random order (seeded), so the human verdict is A or B
about equally often. 195 of the 301 questions have both kinds of answer (1,294 pairs).
Without the file the benchmark says so and stops; `--synthetic` runs it on a small set of
hand-written pairs in this file instead (the test does, where the data is absent).

1. **Planted judges** (plain python, documented here as planted; none is a real judge). Each
   reads a candidate's *content* the same way: `content(question, text)` is 1 when the text
   contains, word for word after SQuAD normalisation, one of the answers the people marked
   acceptable for that question, else 0. It uses the human labels, so it is an oracle of
   this benchmark, not a scorer anyone could ship:

   - `exact`: content(A) - content(B). It treats both positions alike, whitespace, padding
     and praise add no acceptable answer, so it has no defect the audit tests: every
     finding on it is false. It runs with repeats (`deterministic=False`), so all seven
     kinds are measured on it.
   - `always_a`: 1 (A) whatever it is shown. Planted: position bias.
   - `longer`: 0.5 x (content(A) - content(B)) + 0.5 x tanh((len(A) - len(B)) / 100
     characters), clipped to [-1, 1]: a content judge with a length term, so not purely
     length (at these weights the length term can cancel a content difference, a tie,
     but never reverse it). Planted: verbosity.
   - `self_praise`: 0.6 x the content difference + 0.4 x (praised(A) - praised(B)), where
     praised is 1 when the text holds a word of a praise lexicon (excellent, accurate,
     perfect, ...; `PRAISE_WORDS`). Planted: self-praise.
   - `noisy`: the exact judge's verdict, but on each call, with probability 0.5, a verdict
     drawn uniformly from A, B and tie instead (a call's draw is independent of every other
     call: a sampling judge). Planted: non-repeatability (two calls differ half the time).
   - `first_on_ties`: the exact judge, which says A where the two contents are equal (a
     position bias only where the judge cannot tell the candidates apart, as LLM judges
     often show). Planted: position bias, on close calls only.

   Each judge is audited (`sane.pairwise.audit_target`, the default `AuditSettings`) in R
   runs (`--runs`, 100), each a random draw of N pairs (`--n`, 12: the number of examples
   the execute stage's audit will use) from distinct questions. A planted bias is *detected*
   in a run when the check made for it reports a finding: swap_symmetry saying "prefers
   position A" for always_a, verbosity for longer, self_praise for self_praise,
   repeatability for noisy, swap_symmetry or identity for first_on_ties (each printed
   apart). A *false finding* is any finding on `exact`; on `noisy`, a finding of a bias
   that is not there (a position preference, verbosity, self-praise) is false too (its
   other findings, such as verdicts that flip on swap or identical pairs given a winner,
   are what noise does, and true). Targets (issue 53): every planted bias detected in
   >= 95% of runs, false findings on the exact judge <= 5%. Per judge the table gives each
   check's finding rate and mean value over the runs. The full run also sweeps the
   strength of three plants (a position lean added to an exact judge, the length term's
   weight, the noisy judge's share of random verdicts) and N for the noisy one, to show
   where the audit's power ends, and counts the false bias findings on the noisy judges,
   which have no bias.

   Two real comparative scorers are audited alongside (measured, nothing planted): the
   built-in spec `answer_preference`'s `overlap-compared` (SQuAD token F1 with the question,
   used comparatively by the `compared` target kind) and the same with ROUGE-L.

2. **Human pairwise agreement** on all NQ-301 pairs (`sane.stats.pairwise_agreement`:
   accuracy on the pairs the people decided, with its Wilson interval; the share the judge
   called a tie; Cohen's kappa): each planted judge (`exact` uses the labels: its figure is
   the ceiling of this benchmark, not a result), and the `compared` scorers built through
   `sane.scorers.build_target`: token F1 and ROUGE-L against the question (no gold answer is
   in the file: overlap with the question is weak but needs no reference), and in the full
   run MiniLM cosine with the question (`embed_minilm`, the embedded encoder).

3. **The embedded Qwen judge** (`--qwen N`; 24 in the full run, off in `--quick`): the
   `qwen-pairwise` target of `builtin:answer_preference` (`pairwise_judge`,
   local/qwen2.5-coder-1.5b, temperature 0, `reply: json`, the shipped default rubric),
   built with `sane.scorers.build_target` and an `LLMClient` as the pipeline builds them, on
   N NQ-301 pairs, audited with the swap_symmetry and identity kinds only (4 calls a pair).
   It runs the real 1.5B model on this machine's CPU. One call is timed first (after the
   model loads) and N is cut to what fits `--qwen-budget-s` (840 s) if it must be. Its
   replies are cached in `out/bench-pairwise/llm-cache.db` (a rerun replays them; delete
   the file to measure again). Printed first: its position preference with its interval,
   and the share of its decisive verdicts that flip on swap, with theirs; then its
   agreement with the people over both orders of every pair.

    .venv/bin/python benchmarks/bench_pairwise.py --quick     (offline, under a minute)
    .venv/bin/python benchmarks/bench_pairwise.py             (full: 100 runs, the sweeps,
                                                               MiniLM, Qwen on 24 pairs)
    .venv/bin/python benchmarks/bench_pairwise.py --quick --synthetic   (no data needed)

The last line is one JSON object: `detection_rate` (planted bias -> share of runs),
`false_finding_rate_exact`, `false_bias_finding_rate_noisy`, `finding_rates` (judge ->
kind -> share of runs), `human_agreement` (target -> accuracy, its interval, kappa, ties,
decided pairs, accuracy where the judge decided), `qwen_position_bias` (value and ci: the
position preference; flip_rate and flip_ci; identity; the verdicts; pairs, calls, seconds
per call, the CPU; its human agreement; null when not run), `power` (the sweeps; null in
`--quick`), `runs`, `n`, `data`, `wall_s`.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import math
import random
import sys
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sane.comparison_record import ComparisonAudit
from sane.pairwise import AuditSettings, audit_target
from sane.scorers.lexical import _squad_tokens
from sane.stats import pairwise_agreement

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
NQ301 = ROOT.parent / "shared" / "data" / "openqa_nq301" / "NQ301_human.tsv"
OUT = ROOT / "out" / "bench-pairwise"
SIDES = ("answer_a", "answer_b")
N_DEFAULT = 12  # examples per audit: what the execute stage's audit will use
QWEN_MODEL_TARGET = "qwen-pairwise"  # builtin:answer_preference's pairwise judge

Record = dict[str, str]
Score = Callable[[Record, int], Awaitable[float]]


# ------------------------------------------------------------------ the pairs


@dataclass(frozen=True)
class Pair:
    question: str
    a: str
    b: str
    human: int  # +1: A is the acceptable one, -1: B is

    def record(self) -> Record:
        return {"question": self.question, "answer_a": self.a, "answer_b": self.b}


@dataclass
class Data:
    name: str
    # question -> (acceptable answers, unacceptable answers), each as the people saw it
    answers: dict[str, tuple[list[str], list[str]]]

    def gold(self) -> dict[str, list[tuple[str, ...]]]:
        """question -> the acceptable answers' normalised token sequences."""
        return {
            q: [t for t in (tuple(_squad_tokens(a)) for a in good) if t]
            for q, (good, _bad) in self.answers.items()
        }

    def questions(self) -> list[str]:
        """The questions with both an acceptable and an unacceptable answer."""
        return [q for q, (good, bad) in self.answers.items() if good and bad]

    def all_pairs(self, seed: int) -> list[Pair]:
        """Every (acceptable, unacceptable) pair of every question, each in a seeded random
        order."""
        rng = random.Random(seed)
        pairs = []
        for q in self.questions():
            good, bad = self.answers[q]
            for g in good:
                for b in bad:
                    pairs.append(_oriented(q, g, b, rng))
        return pairs

    def draw(self, n: int, rng: random.Random) -> list[Pair]:
        """n pairs from n distinct questions: one acceptable and one unacceptable answer
        each, in a random order."""
        questions = rng.sample(self.questions(), min(n, len(self.questions())))
        return [
            _oriented(q, rng.choice(self.answers[q][0]), rng.choice(self.answers[q][1]), rng)
            for q in questions
        ]


def _oriented(question: str, good: str, bad: str, rng: random.Random) -> Pair:
    if rng.random() < 0.5:
        return Pair(question, good, bad, 1)
    return Pair(question, bad, good, -1)


def load_nq301(path: Path = NQ301) -> Data:
    """NQ-301's answers by question, by the people's verdict (Acceptable? Yes / No)."""
    answers: dict[str, tuple[list[str], list[str]]] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            question, answer = row["Question"].strip(), row["Model answer"].strip()
            verdict = row["Acceptable?"].strip()
            if not answer or verdict not in ("Yes", "No"):
                continue
            good, bad = answers.setdefault(question, ([], []))
            (good if verdict == "Yes" else bad).append(answer)
    return Data("nq301", answers)


# hand-written pairs for a run without the data (the test's fallback): question ->
# (acceptable answers, unacceptable answers)
SYNTHETIC: dict[str, tuple[list[str], list[str]]] = {
    "what is the capital of australia": (
        ["Canberra", "The capital of Australia is Canberra."],
        ["Sydney", "Australia's capital is Melbourne, its second city."],
    ),
    "who wrote pride and prejudice": (
        ["Jane Austen", "It was written by Jane Austen in 1813."],
        ["Charlotte Bronte", "The novel was written by Emily Bronte."],
    ),
    "how many sides does a hexagon have": (["six", "A hexagon has 6 sides."], ["eight", "5"]),
    "what gas do plants take in for photosynthesis": (
        ["carbon dioxide", "Plants take in CO2 from the air."],
        ["oxygen", "Plants breathe in nitrogen for photosynthesis."],
    ),
    "in which year did apollo 11 land on the moon": (
        ["1969", "Apollo 11 landed on the Moon in July 1969."],
        ["1972", "It landed in 1968, on Christmas Eve."],
    ),
    "what is the chemical symbol for gold": (["Au", "Gold's symbol is Au."], ["Ag", "Go"]),
    "which planet is closest to the sun": (
        ["Mercury", "The closest planet to the Sun is Mercury."],
        ["Venus", "Mars is the planet nearest the Sun."],
    ),
    "what is the largest ocean on earth": (
        ["the Pacific Ocean", "Pacific"],
        ["the Atlantic Ocean", "The Indian Ocean is the largest."],
    ),
    "who painted the mona lisa": (
        ["Leonardo da Vinci", "The Mona Lisa was painted by Leonardo da Vinci."],
        ["Michelangelo", "Raphael painted it in Florence."],
    ),
    "what is the boiling point of water in kelvin": (
        ["373.15 K", "about 373 kelvin"],
        ["100", "Water boils at 273 kelvin."],
    ),
    "how many continents are there": (["seven", "There are 7 continents."], ["five", "nine"]),
    "what is the longest river in africa": (
        ["the Nile", "The Nile is Africa's longest river."],
        ["the Congo", "The Niger River is the longest in Africa."],
    ),
    "who was the first president of the united states": (
        ["George Washington", "Washington"],
        ["John Adams", "Thomas Jefferson was the first president."],
    ),
    "what is the hardest natural substance": (
        ["diamond", "Diamond is the hardest natural material."],
        ["quartz", "Granite is the hardest substance in nature."],
    ),
}


def synthetic() -> Data:
    return Data("synthetic", {q: (list(g), list(b)) for q, (g, b) in SYNTHETIC.items()})


# ------------------------------------------------------------------ the planted judges

PRAISE_WORDS = frozenset({
    "excellent", "accurate", "perfect", "outstanding", "flawless", "superb", "complete",
    "correct", "best", "better", "clearly",
})  # fmt: skip


def contains(tokens: Sequence[str], answer: tuple[str, ...]) -> bool:
    k = len(answer)
    return any(tuple(tokens[i : i + k]) == answer for i in range(len(tokens) - k + 1))


class Planted:
    """The planted comparative judges over one data set's human labels (module docstring)."""

    def __init__(self, data: Data, seed: int) -> None:
        self.gold = data.gold()
        self.rng = random.Random(seed)  # the noisy judge's draws: a new one every call

    def content(self, question: str, text: str) -> float:
        tokens = _squad_tokens(text)
        return float(any(contains(tokens, answer) for answer in self.gold.get(question, [])))

    def _diff(self, r: Record) -> float:
        q = r["question"]
        return self.content(q, r["answer_a"]) - self.content(q, r["answer_b"])

    @staticmethod
    def _praised(text: str) -> float:
        return float(bool(set(_squad_tokens(text)) & PRAISE_WORDS))

    def exact(self, r: Record, _repeat: int) -> float:
        return self._diff(r)

    def always_a(self, _r: Record, _repeat: int) -> float:
        return 1.0

    def longer(self, r: Record, _repeat: int, weight: float = 0.5) -> float:
        length = math.tanh((len(r["answer_a"]) - len(r["answer_b"])) / 100)
        return _clip((1 - weight) * self._diff(r) + weight * length)

    def self_praise(self, r: Record, _repeat: int) -> float:
        praise = self._praised(r["answer_a"]) - self._praised(r["answer_b"])
        return _clip(0.6 * self._diff(r) + 0.4 * praise)

    def noisy(self, r: Record, _repeat: int, share: float = 0.5) -> float:
        if self.rng.random() < share:
            return self.rng.choice((1.0, -1.0, 0.0))
        return self._diff(r)

    def noisy_at(self, share: float) -> Callable[[Record, int], float]:
        """The sweep's noisy judges: a random verdict on `share` of the calls."""
        return lambda r, repeat: self.noisy(r, repeat, share)

    def first_on_ties(self, r: Record, _repeat: int) -> float:
        diff = self._diff(r)
        return diff if diff != 0 else 1.0

    def leaning(self, lean: float) -> Callable[[Record, int], float]:
        """The sweep's position lean: 0.8 x the content difference + `lean` toward A."""
        return lambda r, _repeat: _clip(0.8 * self._diff(r) + lean)


def _clip(value: float) -> float:
    return max(-1.0, min(1.0, value))


def _async(fn: Callable[[Record, int], float]) -> Score:
    async def score(record: Record, repeat: int = 0) -> float:
        return fn(record, repeat)

    return score


# judge -> (deterministic, the kinds whose finding detects its plant, or None for exact)
PLANTED: dict[str, tuple[bool, tuple[str, ...] | None]] = {
    "exact": (False, None),  # with repeats: every kind measured on it
    "always_a": (True, ("swap_symmetry",)),
    "longer": (True, ("verbosity",)),
    "self_praise": (True, ("self_praise",)),
    "noisy": (False, ("repeatability",)),
    "first_on_ties": (True, ("swap_symmetry", "identity")),
}
BIAS_KINDS = ("verbosity", "self_praise")  # plus a swap finding that names a position


def _position_finding(audit: ComparisonAudit) -> bool:
    check = audit.check("swap_symmetry")
    return bool(check and check.finding and check.finding.startswith("prefers position"))


def detected(judge: str, audit: ComparisonAudit) -> bool:
    """Whether this run found the judge's planted defect (module docstring)."""
    found = {c.kind for c in audit.findings}
    if judge == "always_a":
        check = audit.check("swap_symmetry")
        return bool(check and check.finding and check.finding.startswith("prefers position A"))
    kinds = PLANTED[judge][1] if judge in PLANTED else None  # a real scorer: nothing planted
    return bool(found & set(kinds or ()))


def false_bias(audit: ComparisonAudit) -> bool:
    """A finding of a bias a judge without one must not get: a position preference,
    verbosity or self-praise."""
    return _position_finding(audit) or any(c.kind in BIAS_KINDS for c in audit.findings)


# ------------------------------------------------------------------ the audits


@dataclass
class Tally:
    runs: int = 0
    detected: int = 0
    any_finding: int = 0
    false_bias: int = 0
    position: int = 0  # runs whose swap check said the judge prefers a position
    findings: dict[str, int] | None = None
    values: dict[str, list[float]] | None = None

    def add(self, audit: ComparisonAudit, hit: bool) -> None:
        self.findings = self.findings or defaultdict(int)
        self.values = self.values or defaultdict(list)
        self.runs += 1
        self.detected += hit
        self.any_finding += bool(audit.findings)
        self.false_bias += false_bias(audit)
        self.position += _position_finding(audit)
        for check in audit.checks:
            self.findings[check.kind] += bool(check.finding)
            if check.skipped is None and check.value is not None:
                self.values[check.kind].append(check.value)


async def run_audits(
    judges: dict[str, tuple[Score, bool]],
    data: Data,
    runs: int,
    n: int,
    seed: int,
    settings: AuditSettings,
    detect: Callable[[str, ComparisonAudit], bool] = detected,
) -> dict[str, Tally]:
    """R runs; in each, every judge is audited on the same draw of n pairs."""
    tallies = {name: Tally() for name in judges}
    rng = random.Random(seed)
    for _ in range(runs):
        examples = [pair.record() for pair in data.draw(n, rng)]
        for name, (score, deterministic) in judges.items():
            audit = await audit_target(
                score, examples, SIDES, deterministic=deterministic, settings=settings,
                target=name,
            )  # fmt: skip
            if audit.error:
                raise RuntimeError(f"{name}: {audit.error}")
            tallies[name].add(audit, detect(name, audit))
    return tallies


def _print_tallies(tallies: dict[str, Tally], kinds: Sequence[str]) -> None:
    width = max(len(k) for k in kinds)
    print(f"  {'check':<{width}}  " + "  ".join(f"{name:>15}" for name in tallies))
    for kind in kinds:
        cells = []
        for tally in tallies.values():
            values = (tally.values or {}).get(kind, [])
            rate = (tally.findings or {}).get(kind, 0) / max(tally.runs, 1)
            mean = f"{np.mean(values):+.2f}" if values else "  -  "
            cells.append(f"{rate:>6.0%} {mean:>8}")
        print(f"  {kind:<{width}}  " + "  ".join(f"{c:>15}" for c in cells))
    print("  (each cell: share of runs with a finding, the check's mean value over the runs)")


# ------------------------------------------------------------------ real scorers


def answer_preference():
    from sane.inputs import load_spec

    return load_spec("builtin:answer_preference")


def compared_targets(with_embedding: bool) -> dict[str, object]:
    """Pointwise metrics used comparatively (`compared`), built through sane's own API."""
    from pydantic import TypeAdapter

    from sane.scorers import BuildContext, build_target
    from sane.target_kind import AnyTargetConfig

    spec, _path = answer_preference()
    configs = [t for t in spec.targets if t.kind == "compared"]  # overlap-compared: token F1
    adapter = TypeAdapter(AnyTargetConfig)
    metrics = ["rouge_l"] + (["embed_minilm"] if with_embedding else [])
    for metric in metrics:
        configs.append(
            adapter.validate_python({
                "name": f"{metric.replace('_', '-')}-compared", "kind": "compared",
                "target": {"kind": "builtin", "metric": metric, "reference_field": "question"},
            })
        )  # fmt: skip
    context = BuildContext(spec=spec)
    return {config.name: build_target(config, context) for config in configs}


async def preferences_of(target: object, records: list[Record]) -> list[float]:
    batch = getattr(target, "score_batch", None)
    if batch is not None:
        out: list[float] = []
        for i in range(0, len(records), 256):
            out.extend(await batch(records[i : i + 256]))
        return out
    return [await target.score(record) for record in records]  # type: ignore[attr-defined]


def _agreement_row(preferences: Sequence[float], human: Sequence[int]) -> dict[str, object]:
    """pairwise_agreement's figures, and the accuracy on the pairs the judge itself decided
    (a judge that calls most pairs a tie is right or wrong on the rest)."""
    agreement = pairwise_agreement(preferences, human)
    value = agreement.accuracy.value
    own = agreement.decided - agreement.judge_ties
    hits = round(value * agreement.decided) if value is not None else 0
    return {
        "accuracy": None if value is None else round(value, 3),
        "ci": [round(v, 3) for v in agreement.accuracy.ci or (math.nan, math.nan)],
        "kappa": None if agreement.kappa is None else round(agreement.kappa, 3),
        "judge_ties": agreement.judge_ties,
        "decided": agreement.decided,
        "accuracy_where_it_decided": round(hits / own, 3) if own else None,
    }


# ------------------------------------------------------------------ the embedded Qwen


async def qwen_measure(
    data: Data, pairs_wanted: int, seed: int, budget_s: float, cache: Path, settings: AuditSettings
) -> dict[str, object] | None:
    """The embedded Qwen pairwise judge's position bias and identity on NQ pairs."""
    from sane.llm import LLMClient, LLMSettings
    from sane.scorers import BuildContext, build_target

    spec, _path = answer_preference()
    config = next(t for t in spec.targets if t.name == QWEN_MODEL_TARGET)
    pairs = data.draw(pairs_wanted, random.Random(seed + 7919))
    cache.parent.mkdir(parents=True, exist_ok=True)
    client = LLMClient(LLMSettings(cache_path=cache))
    try:
        judge = build_target(config, BuildContext(spec=spec, llm=client, example=pairs[0].record()))
        seen: dict[tuple[str, str, str], float] = {}

        async def score(record: Record, repeat: int = 0) -> float:
            value = await judge.score(record, repeat)  # type: ignore[attr-defined]
            seen[(record["question"], record["answer_a"], record["answer_b"])] = value
            return value

        # one call to load the model, one timed: the calls a pair needs are sized on it
        started = time.perf_counter()
        spare = data.draw(1, random.Random(seed + 104729))[0].record()
        await score(spare)
        load_s = time.perf_counter() - started
        started, made_before = time.perf_counter(), client.calls_made
        await score({**spare, "answer_a": spare["answer_b"], "answer_b": spare["answer_a"]})
        call_s = time.perf_counter() - started
        fits = int(budget_s // max(4 * call_s, 1e-6))
        used = pairs[: max(2, min(len(pairs), fits))]
        if client.calls_made == made_before:
            print(f"  Qwen: replayed from the LLM cache {cache} (delete it to measure again)")
        else:
            print(
                f"  Qwen: first call {load_s:.1f} s (the model's load with it), a call "
                f"{call_s:.1f} s: {len(used)} pairs x 4 calls "
                f"(est. {len(used) * 4 * call_s / 60:.1f} min; budget {budget_s / 60:.0f} min)",
                flush=True,
            )
        if len(used) < len(pairs):
            print(f"  Qwen: cut from {len(pairs)} to {len(used)} pairs to fit the budget")
        calls_before = client.calls_made
        started = time.perf_counter()
        audit = await audit_target(
            score, [p.record() for p in used], SIDES, deterministic=False, settings=settings,
            kinds=["swap_symmetry", "identity"], target=QWEN_MODEL_TARGET,
        )  # fmt: skip
        wall = time.perf_counter() - started
        made = client.calls_made - calls_before
        await client.aclose()
    finally:
        client.close()
    if audit.error:
        print(f"  Qwen: {audit.error}")
        return {"error": audit.error}
    ab = [seen.get((p.question, p.a, p.b)) for p in used]
    ba = [seen.get((p.question, p.b, p.a)) for p in used]
    swap = audit.check("swap_symmetry")
    identity = audit.check("identity")
    verdicts_ab = [_verdict(v, settings) for v in ab if v is not None]
    both = [(v, p.human) for v, p in zip(ab, used, strict=True) if v is not None]
    both += [(v, -p.human) for v, p in zip(ba, used, strict=True) if v is not None]
    return {
        "model": config.model,  # type: ignore[attr-defined]
        "cpu": _cpu(),
        "value": _rounded(swap.value if swap else None),
        "ci": _rounded(swap.ci if swap else None),
        "flip_rate": _rounded(swap.rate if swap else None),
        "flip_ci": _rounded(swap.rate_ci if swap else None),
        "decisive": sum(v != 0 for v in verdicts_ab),
        "identity_winner_rate": _rounded(identity.value if identity else None),
        "identity_ci": _rounded(identity.ci if identity else None),
        "findings": [c.finding for c in audit.findings],
        "verdicts_ab": {"A": verdicts_ab.count(1), "B": verdicts_ab.count(-1),
                        "tie": verdicts_ab.count(0)},
        "pairs": len(used),
        "calls": audit.calls,
        "uncached_calls": made,
        "failed_calls": audit.failed_calls,
        "wall_s": round(wall, 1),
        "s_per_call": round(wall / made, 2) if made else None,
        "human_agreement": _agreement_row([v for v, _ in both], [h for _, h in both]),
    }  # fmt: skip


def _cpu() -> str | None:
    """This machine's CPU, as /proc/cpuinfo names it (the Qwen figures' timing is its)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def _rounded(value: float | tuple[float, float] | None) -> object:
    if value is None:
        return None
    if isinstance(value, tuple | list):
        return [round(v, 3) for v in value]
    return round(value, 3)


def _verdict(preference: float, settings: AuditSettings) -> int:
    return 0 if abs(preference) <= settings.decisive else (1 if preference > 0 else -1)


# ------------------------------------------------------------------ main


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="offline, about a minute")
    parser.add_argument("--runs", type=int, default=None, help="audits per judge (100)")
    parser.add_argument("--n", type=int, default=N_DEFAULT, help="pairs per audit")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--synthetic", action="store_true", help="hand-written pairs, no data")
    parser.add_argument("--qwen", type=int, default=None, help="Qwen pairs (24; 0 in --quick)")
    parser.add_argument("--qwen-budget-s", type=float, default=840.0)
    parser.add_argument("--qwen-cache", type=Path, default=OUT / "llm-cache.db")
    parser.add_argument("--no-sweep", action="store_true", help="skip the strength sweeps")
    args = parser.parse_args(argv)
    if args.runs is None:
        args.runs = 100
    if args.qwen is None:
        args.qwen = 0 if args.quick else 24
    return args


def main(argv: Sequence[str] | None = None) -> dict[str, object]:
    return asyncio.run(_main(_parse(argv)))


async def _main(args: argparse.Namespace) -> dict[str, object]:
    started = time.perf_counter()
    if args.synthetic:
        data = synthetic()
    elif not NQ301.is_file():
        sys.exit(
            f"bench_pairwise: {NQ301} is absent (NQ-301, ../shared/data/README.md); "
            "run with --synthetic for the hand-written pairs"
        )
    else:
        data = load_nq301()
    settings = AuditSettings(seed=args.seed)
    planted = Planted(data, args.seed)
    print(
        f"data: {data.name}, {len(data.questions())} questions with an acceptable and an "
        f"unacceptable answer; {args.runs} runs of {args.n} pairs; {settings}"
    )
    _check_gold(planted, data)

    # 3 first when asked: the embedded judge's position bias leads the report
    qwen = None
    if args.qwen > 0:
        print(f"\n== the embedded Qwen as a pairwise judge ({args.qwen} pairs, both orders)")
        qwen = await qwen_measure(
            data, args.qwen, args.seed, args.qwen_budget_s, args.qwen_cache, settings
        )
        _print_qwen(qwen)

    # 1. planted judges
    judges: dict[str, tuple[Score, bool]] = {
        name: (_async(getattr(planted, name)), deterministic)
        for name, (deterministic, _kinds) in PLANTED.items()
    }
    real = compared_targets(with_embedding=False)
    audited = dict(judges)
    for name, target in real.items():
        audited[name] = (target.score, True)  # type: ignore[attr-defined]
    print(f"\n== 1. the audit on planted judges ({args.runs} runs x {args.n} pairs)")
    tallies = await run_audits(audited, data, args.runs, args.n, args.seed, settings)
    kinds = ["swap_symmetry", "identity", "invariance", "verbosity", "self_praise",
             "transitivity", "repeatability"]  # fmt: skip
    _print_tallies(tallies, kinds)
    detection = {
        "position (always_a)": tallies["always_a"].detected / args.runs,
        "verbosity (longer)": tallies["longer"].detected / args.runs,
        "self_praise (self_praise)": tallies["self_praise"].detected / args.runs,
        "repeatability (noisy)": tallies["noisy"].detected / args.runs,
        "position on ties (first_on_ties)": tallies["first_on_ties"].detected / args.runs,
    }
    ties_by = {k: (tallies["first_on_ties"].findings or {}).get(k, 0) / args.runs
               for k in ("swap_symmetry", "identity")}  # fmt: skip
    false_exact = tallies["exact"].any_finding / args.runs
    false_noisy = tallies["noisy"].false_bias / args.runs
    print()
    for label, rate in detection.items():
        mark = "met" if rate >= 0.95 else "MISSED"
        print(f"  detected {label}: {rate:.0%} of runs (target >= 95%: {mark})")
    print(
        f"    first_on_ties by swap_symmetry {ties_by['swap_symmetry']:.0%}, "
        f"by identity {ties_by['identity']:.0%}"
    )
    mark = "met" if false_exact <= 0.05 else "MISSED"
    print(f"  false findings on exact: {false_exact:.0%} of runs (target <= 5%: {mark})")
    print(
        f"  false bias findings on noisy (position, verbosity, self-praise): {false_noisy:.0%}"
        f" of runs; its findings of any kind: {tallies['noisy'].any_finding / args.runs:.0%}"
    )

    power = None
    if not args.quick and not args.no_sweep:
        power = await _sweeps(planted, data, args, settings)

    # 2. human pairwise agreement
    pairs = data.all_pairs(args.seed)
    records = [p.record() for p in pairs]
    human = [p.human for p in pairs]
    print(f"\n== 2. agreement with the people's verdicts on {len(pairs)} {data.name} pairs")
    agreement: dict[str, dict[str, object]] = {}
    fresh = Planted(data, args.seed)  # the noisy judge's draws the same in --quick and full
    for name in PLANTED:
        fn = getattr(fresh, name)
        agreement[name] = _agreement_row([fn(r, 0) for r in records], human)
    scorers = compared_targets(with_embedding=not args.quick)
    for name, target in scorers.items():
        agreement[name] = _agreement_row(await preferences_of(target, records), human)
    if qwen and "human_agreement" in qwen:
        agreement[f"{QWEN_MODEL_TARGET} ({qwen['pairs']} pairs x 2 orders)"] = qwen[
            "human_agreement"
        ]  # type: ignore[assignment]
    for name, row in agreement.items():
        print(
            f"  {name:<34} accuracy {row['accuracy']:.3f} "
            f"[{row['ci'][0]:.3f}, {row['ci'][1]:.3f}]  kappa {row['kappa']:+.3f}  "  # type: ignore[index]
            f"ties {row['judge_ties']}/{row['decided']}  "
            f"(accuracy where it decided: {row['accuracy_where_it_decided']})"
        )
    print("  (exact reads the human labels: its row is this benchmark's ceiling, not a result)")

    summary = {
        "detection_rate": {k: round(v, 3) for k, v in detection.items()},
        "false_finding_rate_exact": round(false_exact, 3),
        "false_bias_finding_rate_noisy": round(false_noisy, 3),
        "finding_rates": {
            name: {k: round(v / args.runs, 3) for k, v in (t.findings or {}).items()}
            for name, t in tallies.items()
        },
        "qwen_position_bias": qwen,
        "human_agreement": agreement,
        "power": power,
        "runs": args.runs,
        "n": args.n,
        "data": data.name,
        "wall_s": round(time.perf_counter() - started, 1),
    }
    print(json.dumps(summary))
    return summary


def _check_gold(planted: Planted, data: Data) -> None:
    """The exact judge is exact only if the audit's added sentences never hold an acceptable
    answer: count the questions where they would (reported, never hidden)."""
    from sane.pairwise.kinds import NEUTRAL, PADDING, PRAISE

    hits = [
        q for q in data.questions()
        if any(planted.content(q, text) for text in (PADDING, PRAISE, NEUTRAL))
    ]  # fmt: skip
    print(f"  questions where an audit sentence (padding, praise, neutral) holds an acceptable "
          f"answer, so exact is not exact there: {len(hits)} {hits[:3]}")  # fmt: skip


async def _sweeps(
    planted: Planted, data: Data, args: argparse.Namespace, settings: AuditSettings
) -> dict[str, dict[str, object]]:
    """Detection against the plant's strength (a position lean added to the exact judge, the
    length term's weight in `longer`, the noisy judge's share of random verdicts) and against
    the pairs per audit; and the false bias findings on unbiased noisy judges."""
    runs = args.runs
    print(f"\n== power and false bias findings ({runs} runs each)")
    judges: dict[str, tuple[Score, bool]] = {}
    for lean in (0.05, 0.08, 0.12, 0.2):
        judges[f"lean {lean}"] = (_async(planted.leaning(lean)), True)
    for weight in (0.1, 0.2, 0.3, 0.5):
        judges[f"length {weight}"] = (
            _async(lambda r, rep, w=weight: planted.longer(r, rep, w)),
            True,
        )
    for share in (0.2, 0.5, 1.0):
        judges[f"noise {share}"] = (_async(planted.noisy_at(share)), False)

    def detect(name: str, audit: ComparisonAudit) -> bool:
        if name.startswith("lean"):
            return _position_finding(audit)
        if name.startswith("length"):
            return any(c.kind == "verbosity" for c in audit.findings)
        return any(c.kind == "repeatability" for c in audit.findings)

    tallies = await run_audits(judges, data, runs, args.n, args.seed + 1, settings, detect)
    for n in (16, 24):
        more = await run_audits(
            {f"noise 0.5 at n={n}": judges["noise 0.5"]}, data, runs, n, args.seed + 2,
            settings, detect,
        )  # fmt: skip
        tallies.update(more)
    out: dict[str, dict[str, object]] = {}
    for name, tally in tallies.items():
        kind = {"lean": "swap_symmetry", "length": "verbosity"}.get(
            name.split()[0], "repeatability"
        )
        mean = float(np.mean((tally.values or {}).get(kind, [math.nan])))
        row: dict[str, object] = {"detected": round(tally.detected / tally.runs, 3),
                                  f"mean_{kind}": round(mean, 3)}  # fmt: skip
        line = (
            f"  {name:<18} detected {tally.detected / tally.runs:>5.0%}   mean {kind} {mean:+.3f}"
        )
        if name.startswith("noise"):
            row["false_bias"] = round(tally.false_bias / tally.runs, 3)
            row["false_by_kind"] = {
                "position": round(tally.position / tally.runs, 3),
                **{k: round((tally.findings or {}).get(k, 0) / tally.runs, 3) for k in BIAS_KINDS},
            }
            line += (
                f"   false bias findings {tally.false_bias / tally.runs:.0%} {row['false_by_kind']}"
            )
        print(line)
        out[name] = row
    return out


def _print_qwen(qwen: dict[str, object] | None) -> None:
    if not qwen or "error" in qwen:
        return
    ci, flip_ci = qwen["ci"], qwen["flip_ci"]
    print(
        f"  position preference {qwen['value']:+.3f} [{ci[0]:+.3f}, {ci[1]:+.3f}] "  # type: ignore[index]
        f"(+1: always the first); share of its {qwen['decisive']} decisive verdicts that flip "
        f"on swap: {qwen['flip_rate']} {flip_ci}"
    )
    print(
        f"  identical pairs given a winner: {qwen['identity_winner_rate']} "
        f"{qwen['identity_ci']}; verdicts on (A, B): {qwen['verdicts_ab']}"
    )
    for finding in qwen["findings"]:  # type: ignore[attr-defined]
        print(f"  finding: {finding}")
    print(
        f"  {qwen['calls']} calls ({qwen['uncached_calls']} not cached) in {qwen['wall_s']} s; "
        f"{qwen['s_per_call']} s a call"
    )


if __name__ == "__main__":
    main()
