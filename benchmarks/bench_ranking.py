"""Ranking benchmark on real human labels: does a suite rank judges as humans would?

Why: ranking candidate judges is one of the three things sane is for (SANE paper, section
5.3: suite pass rates against a human benchmark, Spearman 0.852 over 11 judges). Issue 51
found a suite that mostly holds invariance and no-increase tests rewards a scorer that never
moves. This benchmark measures that on QAGS (`../shared/data/qags/`, CNN/DM with graded and
XSum with binary human consistency labels; read from there, never copied into the project).

Targets (`ranking_targets.py`, and two lexical built-ins) span the range of quality: n-gram
precision against the source (the trigram one is the best simple metric of factual
consistency on QAGS), entity precision, ROUGE-L and chrF, and planted defects of the trigram
one (reads the first sentence only, inverted, noisy). Three null scorers run beside them
(`sane.scorers.null_scorers`: constant, seeded noise, length). A target's **human agreement**
is its Spearman's rho with the labels on the held-out QAGS items (those that are not the
suite's examples), the mean of CNN/DM's and XSum's.

Suites:

- **operators** (a): the operator grid (`--generator operators`: every code edit under every
  pair direction), each panel question decided by a person: the answers are review labels in
  `benchmarks/data/ranking_review.json` (question id -> answer; no QAGS text), put in force
  as the review page does (`sane.review.answer_question`). A question the file does not answer
  is printed (`--questions`) for a person to decide.
- **strong** (b): derived by a strong model through the loopback bridge
  (`../shared/tools/llm-loop-server.py`), replayed from the LLM cache at
  `benchmarks/data/ranking_strong/cache.db` when it exists; skipped otherwise.
- **strong_b**: derived again from the same spec, by other hands playing the strong model
  (each answering from the requests' text alone, without the first recording), replayed
  from `benchmarks/data/ranking_strong_b/cache.db`. With both, the last line's
  ``"reproducibility"`` is `sane compare` of the two (`reproducibility` below): does the
  ranking reproduce when the suite is derived again?

For each suite and each ranking score (`pass_rate`, and `default_score`: the balanced
accuracy over the cases a scorer that never moves fails and those it passes,
`sane.stats.balanced_score`; such a scorer gets 0.5) it prints Spearman and Kendall
with human agreement (percentile bootstrap over targets), where each null scorer falls, and
the share of cases the constant scorer passes. The last line is JSON:
``{SUITE: {"rho_pass_rate", "rho_default_score", "constant_rank_fraction", ...}}``;
``constant_rank_fraction`` is the constant scorer's place by the default score (1 + the
candidates whose default score is higher) over the number placed, itself included (1.0 =
last). The report's own ranking, ordered by the default score with ranks by the paired
sign-flip test, is printed under each suite, and under the human agreement each QAGS set's
split-half reliability of the targets' order (`sane.stats.ranking_reliability`): how far the
labels themselves agree on that order; and, for each suite, the correlations with every
case checked again under each tolerance floor (the report's `tolerance_sensitivity`: the
least change a relation check counts as a move; ``"floor_sensitivity"`` in the last line).
Suites are built afresh on every run.

    .venv/bin/python benchmarks/bench_ranking.py --quick        (offline, a minute or two)
    .venv/bin/python benchmarks/bench_ranking.py --questions    (the questions no label answers)
    .venv/bin/python benchmarks/bench_ranking.py --quick --record-strong   (while a strong model
        answers ../shared/tools/llm-loop-server.py --port 8931: records the strong suite;
        --strong-cache benchmarks/data/ranking_strong_b/cache.db records strong_b)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
QAGS = ROOT.parent / "shared" / "data" / "qags"
REVIEW = HERE / "data" / "ranking_review.json"
# two suites derived independently by a strong model from the same spec (each helper answered
# from the requests' text alone, without the other's recording): a ranking is worth as much
# as it reproduces when the suite is derived again
STRONG_RECORDINGS = {
    "strong": HERE / "data" / "ranking_strong" / "cache.db",
    "strong_b": HERE / "data" / "ranking_strong_b" / "cache.db",
}
STRONG_MODEL, STRONG_BASE = "openai/strong", "http://127.0.0.1:8931/v1"

CRITERION = (
    "How faithful the summary is to the source document: every claim the summary makes must "
    "be supported by the source. Penalise claims that contradict the source, invented facts, "
    "wrong numbers, names, dates or causes, and claims stated more strongly or more certainly "
    "than the source allows. Do not penalise omissions, brevity, paraphrase, or the summary's "
    "grammar, style and sentence order, as long as everything it states is supported."
)
PYTHON_TARGETS = [
    "unigram_precision",
    "bigram_precision",
    "trigram_precision",
    "entity_precision",
    "trigram_first_sentence",
    "trigram_inverted",
    "trigram_noisy",
]
BUILTIN_TARGETS = ["rouge_l", "chrf"]
EMBEDDED_TARGETS = [("minilm-cosine", "embed_minilm"), ("bertscore-minilm", "bertscore_minilm")]


# ------------------------------------------------------------------ data and spec


def load_qags(folder: Path) -> dict[str, list[dict]]:
    """The two QAGS sets as records {source, summary, label}."""
    sets = {}
    for name in ("cnndm", "xsum"):
        rows = json.loads((folder / f"qags_{name}.json").read_text(encoding="utf-8"))
        sets[name] = [
            {
                "source": r["source"],
                "summary": r["system_output"],
                "label": r["scores"]["consistency"],
            }
            for r in rows
        ]
    return sets


def split(sets: dict[str, list[dict]], per_set: int, seed: int) -> tuple[list[dict], dict]:
    """The suite's examples (``per_set`` of each set, seeded) and the held-out rest."""
    examples, held_out = [], {}
    for name, rows in sets.items():
        chosen = set(random.Random(f"{seed}-{name}").sample(range(len(rows)), per_set))
        examples += [{k: rows[i][k] for k in ("source", "summary")} for i in sorted(chosen)]
        held_out[name] = [row for i, row in enumerate(rows) if i not in chosen]
    return examples, held_out


def targets(embedded: bool) -> list[dict]:
    """The spec's candidate targets."""
    found = [
        {"name": ref.replace("_", "-"), "kind": "python", "ref": f"ranking_targets:{ref}",
         "deterministic": True}
        for ref in PYTHON_TARGETS
    ]  # fmt: skip
    found += [
        {"name": m.replace("_", "-"), "kind": "builtin", "metric": m, "reference_field": "source"}
        for m in BUILTIN_TARGETS
    ]
    if embedded:
        found += [
            {"name": n, "kind": "builtin", "metric": m, "reference_field": "source"}
            for n, m in EMBEDDED_TARGETS
        ]
    return found  # the null scorers: `sane execute` plants them (sane.scorers.null_scorers)


def write_examples(folder: Path, examples: list[dict]) -> None:
    """The suite's examples, one JSON object a line, where a spec's `examples` names them."""
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "examples.jsonl").open("w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(example) + "\n" for example in examples)


def write_spec(folder: Path, examples: list[dict], embedded: bool) -> Path:
    write_examples(folder, examples)
    spec = {
        "name": "qags-faithfulness",
        "criterion": CRITERION,
        "fields": {
            "source": "the source document that the summary summarises",
            "summary": "the summary being scored",
        },
        "scored_field": "summary",
        "output": {"type": "continuous", "min": 0, "max": 1, "higher_is_better": True},
        "examples": "examples.jsonl",
        "targets": targets(embedded),
    }
    path = folder / "spec.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return path


def sane(*args: str) -> int:
    """One `sane` command in a child process (python targets import from this folder)."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
    }
    env.setdefault("OPENAI_API_KEY", "none")
    return subprocess.run([sys.executable, "-m", "sane", *args], check=False, env=env).returncode


# ------------------------------------------------------------------ suite (a): a person decides


STAND_IN = "rules:\n" + "".join(
    f'  - {{task: "vote:{q}", response: {{decision: "no", rationale: "stand-in"}}}}\n'
    for q in ("alignment", "realization", "applicability")
)


def fresh(suite: Path) -> None:
    """Remove a suite file and its SQLite companions."""
    for path in (suite, *(suite.with_name(suite.name + end) for end in ("-wal", "-shm", ".lock"))):
        path.unlink(missing_ok=True)


def person_suite(spec: Path, suite: Path, cache: Path, cases: int, review: Path) -> list[str]:
    """The operator-grid suite with every panel question answered from ``review`` (a person's
    recorded answers, put in force as the review page does). No model is called: the panel is
    a scripted stand-in that answers "no" to everything (so that the pipeline's stages finish
    offline), and the person's answers replace its decisions on every question the review
    page asks, the planted controls among them. Returns the questions the file does not
    answer (empty when the suite is complete)."""
    from sane.review import answer_question, page_answers, review_questions
    from sane.suites.store import SuiteStore

    answers = json.loads(review.read_text(encoding="utf-8"))["answers"] if review.exists() else {}
    script = suite.with_suffix(".rules.yaml")
    script.write_text(STAND_IN, encoding="utf-8")
    llm = ["--cache", str(cache), "--script", str(script), "--skip-qualify"]
    if not suite.exists():
        sane("generate", str(spec), "--suite", str(suite), "--generator", "operators",
             "--model", "scripted", "--cases", str(cases), "--exhaustive", *llm)  # fmt: skip
    for _ in range(4):  # alignment, then the cases aligned recipes get, then their controls
        sane("generate", str(suite), *llm)
        store = SuiteStore(suite)
        try:
            given = page_answers(store)
            asked = review_questions(store.snapshot(), given)
            todo = [q for q in asked if q.answer is None and q.id in answers]
            for question in todo:
                answer_question(store, question.id, answers[question.id])
            missing = [q.id for q in asked if q.answer is None and q.id not in answers]
        finally:
            store.close()
        if not todo:
            return missing
    return missing


def print_questions(spec: Path, suite: Path, cache: Path, cases: int, review: Path) -> None:
    """The questions the review file does not answer, each as the review page puts it."""
    from sane.review import review_questions
    from sane.suites.store import SuiteStore

    missing = set(person_suite(spec, suite, cache, cases, review))
    store = SuiteStore(suite, readonly=True)
    try:
        for q in review_questions(store.snapshot()):
            if q.id in missing:
                print(json.dumps(q.model_dump(mode="json", exclude={"example"})))
    finally:
        store.close()


# ------------------------------------------------------------------ suite (b): a strong model


def strong_suite(spec: Path, suite: Path, cache: Path, *, record: bool = False) -> bool:
    """The strong model's suite, replayed from its recorded cache (no call is made: every
    reply must be in it); False when no recording exists. With ``record`` the calls go to the
    bridge at STRONG_BASE and their replies are written to ``cache`` (`--record-strong`)."""
    if not cache.exists() and not record:
        return False
    if record:
        cache.parent.mkdir(parents=True, exist_ok=True)
    else:  # replay from a copy: the committed recording stays as it was recorded
        cache = Path(shutil.copy(cache, suite.with_suffix(".cache.db")))
    if not suite.exists() or record:
        budget = [] if record else ["--max-calls", "0"]
        code = sane("generate", str(spec), "--suite", str(suite), *STRONG_OPTIONS,
                    "--api-base", STRONG_BASE, "--cache", str(cache), *budget)  # fmt: skip
        if code != 0:
            print(f"strong: the recording at {cache} does not replay (exit {code}); skipped")
            return False
    return True


# The oracle qualified on the recorded strong-model fixture (tests/fixtures/strong_model:
# quick 131/131), so the suite skips qualifying it again.
# One vote per question: a careful strong model answers a question the same way each time.
STRONG_OPTIONS = ["--model", STRONG_MODEL, "--capabilities", "6", "--recipes", "3",
                  "--cases", "6", "--votes", "1", "--skip-qualify", "--llm-timeout", "3000",
                  "--concurrency", "64"]  # fmt: skip


# ------------------------------------------------------------------ measuring


def human_agreement(
    suite: Path, held_out: dict[str, list[dict]], folder: Path
) -> tuple[dict[str, float], dict]:
    """target -> mean over the QAGS sets of Spearman's rho with the labels on held-out items,
    and each set's split-half reliability of the targets' order by the labels (what a
    suite's correlation with human agreement is read against)."""
    from sane.analyses.human_alignment import human_benchmark
    from sane.suites.store import SuiteStore

    store = SuiteStore(suite, readonly=True)
    try:  # the candidates and the planted null scorers alike
        names = [t.config.name for t in store.targets()]
    finally:
        store.close()
    per_set, reliability = {}, {}
    for name, rows in held_out.items():
        path = folder / f"held_out_{name}.jsonl"  # a working copy under --out, not the project
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
        benchmark = human_benchmark(
            suite, path, label_field="label", trust_suite_code=True, seed=0, targets=names
        )
        per_set[name] = benchmark.values
        reliability[name] = benchmark.reliability
    names = set.intersection(*(set(values) for values in per_set.values()))
    mean = {n: sum(values[n] for values in per_set.values()) / len(per_set) for n in names}
    return mean, reliability


def measure(suite: Path, human: dict[str, float]) -> dict:
    """One suite's rankings against human agreement, and where the null scorers fall."""
    from sane import api
    from sane.stats import rank_correlation

    report = api.report(suite)
    planted = report.planted_targets
    assert planted is not None, "sane execute plants the null scorers"
    scores = {
        "pass_rate": {n: t.pass_rate for n, t in report.targets.items()},
        "default_score": {n: s.value for n, s in report.default_scores.items()},
    }
    out: dict = {"cases": report.validity.joint_valid_cases,
                 "families": report.validity.validated_families,
                 "constant_pass_rate": planted.constant_pass_share,
                 "not_shown_better": planted.not_shown_better}  # fmt: skip
    for score, values in scores.items():
        candidates = {n: v for n, v in values.items() if v is not None}
        rc = rank_correlation(candidates, human, seed=0)
        field = "place_by_" + score
        out[score] = {
            "spearman": rc.spearman, "spearman_ci": rc.spearman_ci, "kendall": rc.kendall,
            "kendall_ci": rc.kendall_ci, "n": rc.n, "note": rc.note,
            # a null scorer's place among the candidates, 1 = top (ties share the better place)
            "null_places": {p.target: getattr(p, field) for p in planted.scorers},
            "ranked": len(candidates) + 1,
            "order": sorted(candidates, key=lambda n: -candidates[n]),
        }  # fmt: skip
    # the report's own ranking (ordered by the default score; ranks by the paired sign-flip
    # test, Holm-adjusted: targets no test separates share one)
    out["ranking"] = [(e.target, e.rank, e.tied) for e in report.ranking]
    out["ranked_by"] = report.ranked_by
    place = out["default_score"]["null_places"].get("null-constant")
    # the constant scorer's place by the default score over the candidates and itself (1.0:
    # last): 1 + the candidates whose default score is higher (planted_targets'
    # place_by_default_score; the null scorers are placed, never ranked among the candidates)
    out["constant_rank_fraction"] = (
        None if place is None else place / out["default_score"]["ranked"]
    )
    out["stability"] = {n: (t.stability, t.sensitivity) for n, t in report.targets.items()}
    return out


def _fmt(value: float | None) -> str:
    return "  -  " if value is None else f"{value:+.3f}"


def show(name: str, result: dict, human: dict[str, float]) -> None:
    print(f"\n== suite {name}: {result['families']} validated families, {result['cases']} cases")
    print(f"constant scorer passes {result['constant_pass_rate']:.3f} of the judged cases; "
          f"not shown better than it by a paired test: {len(result['not_shown_better'])} of "
          f"{len(result['stability'])} candidates")  # fmt: skip
    for score in ("pass_rate", "default_score"):
        r = result[score]
        ci = lambda c: "[-]" if c is None else f"[{c[0]:+.2f}, {c[1]:+.2f}]"
        print(f"  {score:14s} Spearman {_fmt(r['spearman'])} {ci(r['spearman_ci'])}  "
              f"Kendall {_fmt(r['kendall'])} {ci(r['kendall_ci'])}  over {r['n']} candidates; "
              f"null scorers' places {r['null_places']} of {r['ranked']}")  # fmt: skip
        print("    order: " + ", ".join(r["order"]))
    print(f"  the report's ranking (by {result['ranked_by']}; ranks by paired tests): " + ", ".join(
        f"{rank}{'=' if tied else ''} {n}" for n, rank, tied in result["ranking"]))  # fmt: skip
    print("  stability / sensitivity: " + ", ".join(
        f"{n} {_fmt(s)}/{_fmt(v)}" for n, (s, v) in sorted(result["stability"].items())))  # fmt: skip


def floor_sensitivity(name: str, suite: Path, human: dict[str, float]) -> dict[str, dict]:
    """The report's `tolerance_sensitivity` (every case checked again, from its stored
    scores, under each tolerance bar: an absolute floor or a share of each target's spread
    of scores, the least change a relation check counts as a move) against human agreement:
    how much the ranking's agreement with people rests on that bar."""
    from sane import api
    from sane.stats import rank_correlation

    section = api.report(suite).tolerance_sensitivity
    out: dict[str, dict] = {}
    for row in section.floors if section else []:
        scores = {"pass_rate": row.pass_rates, "default_score": row.default_scores}
        rho = {
            score: rank_correlation(
                {n: v for n, v in values.items() if v is not None}, human, seed=0
            ).spearman
            for score, values in scores.items()
        }
        out[row.label] = {"rho_pass_rate": rho["pass_rate"],
                                 "rho_default_score": rho["default_score"],
                                 "null_places": row.null_places}  # fmt: skip
        print(f"  {name} at tolerance {row.label}: Spearman with human agreement, pass "
              f"rate {_fmt(rho['pass_rate'])}, default score {_fmt(rho['default_score'])}; null "
              f"scorers' places by the default score {row.null_places} of {len(row.order) + 1}; "
              "order: " + ", ".join(row.order))  # fmt: skip
    return out


def reproducibility(a: Path, b: Path) -> dict:
    """`sane compare` of the two strong-model suites: does the ranking reproduce when the
    suite is derived again? Rank agreement of their default scores (and pass rates) over the
    candidates, the pairs one suite's ranking test separates and whether the other agrees,
    and the recipes with a counterpart."""
    from sane.analyses.reproducibility import compare_suites

    result = compare_suites(a, b, similarity="lexical")
    # each pair's winner in either suite by the ranking's test (None: not separated there)
    winners = [
        tuple(c.better if c is not None else None for c in (p.in_a, p.in_b)) for p in result.pairs
    ]
    out = {
        "kendall_default_score": result.ranking_agreement.kendall,
        "spearman_default_score": result.ranking_agreement.spearman,
        "spearman_default_score_ci": result.ranking_agreement.spearman_ci,
        "kendall_pass_rate": result.pass_rate_agreement.kendall,
        "spearman_pass_rate": result.pass_rate_agreement.spearman,
        "pairs": len(winners),
        "pairs_separated_in_both": sum(x is not None and x == y for x, y in winners),
        "pairs_separated_in_one": sum((x is None) != (y is None) for x, y in winners),
        "pairs_disagreeing": sum(x is not None and y is not None and x != y for x, y in winners),
        "recipes_with_counterpart": [result.recipes.a_fraction, result.recipes.b_fraction],
    }
    print(f"\n== reproducibility (sane compare {a.name} {b.name}): the default scores' "
          f"Kendall {_fmt(out['kendall_default_score'])}, Spearman "
          f"{_fmt(out['spearman_default_score'])} over {result.ranking_agreement.n} "
          f"candidates (pass rates: {_fmt(out['kendall_pass_rate'])}, "
          f"{_fmt(out['spearman_pass_rate'])}); of {out['pairs']} pairs the ranking's test "
          f"separates {out['pairs_separated_in_both']} in both suites, "
          f"{out['pairs_separated_in_one']} in one, and the suites disagree on "
          f"{out['pairs_disagreeing']}; aligned recipes with a counterpart (lexical): "
          f"{result.recipes.a_matched}/{result.recipes.a_total} and "
          f"{result.recipes.b_matched}/{result.recipes.b_total}")  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="offline, no embedded models")
    parser.add_argument("--out", type=Path, default=ROOT / "out" / "bench-ranking")
    parser.add_argument("--qags", type=Path, default=QAGS, help="folder of qags_*.json")
    parser.add_argument("--review", type=Path, default=REVIEW)
    parser.add_argument("--strong-cache", type=Path, default=STRONG_RECORDINGS["strong"],
                        help="where --record-strong records (every recording in "
                        "STRONG_RECORDINGS is replayed otherwise)")  # fmt: skip
    parser.add_argument("--examples", type=int, default=3, help="suite examples per QAGS set")
    parser.add_argument("--cases", type=int, default=4)
    parser.add_argument("--questions", action="store_true",
                        help="print the operator suite's questions the review file leaves open")  # fmt: skip
    parser.add_argument("--record-strong", action="store_true",
                        help="generate the strong suite through the bridge, recording its replies "
                        "at --strong-cache (a strong model must answer the bridge)")  # fmt: skip
    args = parser.parse_args(argv)
    sets = load_qags(args.qags)
    examples, held_out = split(sets, args.examples, seed=0)
    args.out.mkdir(parents=True, exist_ok=True)
    spec = write_spec(args.out / "spec", examples, embedded=not args.quick)
    cache = args.out / "cache.db"
    person = args.out / "operators.db"
    strong = {name: args.out / f"{name}.db" for name in STRONG_RECORDINGS}
    for suite in (person, *strong.values()):  # built afresh: a suite left by an earlier run
        fresh(suite)  # may hold another recording's cases or an older code's controls
    if args.questions:
        print_questions(spec, person, cache, args.cases, args.review)
        return 0
    missing = person_suite(spec, person, cache, args.cases, args.review)
    suites = {"operators": person}
    if missing:
        print(f"operators: {len(missing)} question(s) have no recorded answer (--questions)")
    if args.record_strong:
        return 0 if strong_suite(spec, strong["strong"], args.strong_cache, record=True) else 1
    for name, recording in STRONG_RECORDINGS.items():
        if strong_suite(spec, strong[name], recording):
            suites[name] = strong[name]
        else:
            print(f"{name}: no recording at {recording}; skipped")
    results, human = {}, {}
    for name, suite in suites.items():
        sane("execute", str(suite), "--trust-suite-code")
        if not human:
            human, reliability = human_agreement(suite, held_out, args.out)
            print("human agreement (mean Spearman, CNN/DM + XSum held-out):")
            for n in sorted(human, key=lambda n: -human[n]):
                print(f"  {n:24s} {human[n]:+.3f}")
            for set_name, r in reliability.items():
                print(f"  {set_name}: " + ("-" if r is None else r.sentence()))
        results[name] = measure(suite, human)
        show(name, results[name], human)
    summary = {
        name: {
            "rho_pass_rate": r["pass_rate"]["spearman"],
            "rho_default_score": r["default_score"]["spearman"],
            "constant_rank_fraction": r["constant_rank_fraction"],
            "constant_pass_rate": r["constant_pass_rate"],
        }
        for name, r in results.items()
    }
    for name, suite in suites.items():
        summary[name]["floor_sensitivity"] = floor_sensitivity(name, suite, human)
    if {"strong", "strong_b"} <= set(suites):
        summary["reproducibility"] = reproducibility(suites["strong"], suites["strong_b"])
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
