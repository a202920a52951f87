"""Other ranking scores on the ranking benchmark's suites, against human agreement.

Why: issue 51 asks for a default ranking score that a scorer that never moves cannot win and
that ranks judges as people do (QAGS: Spearman with human agreement >= 0.8 on the strong-model
suite, every null scorer in the bottom third). The default score (`sane.stats.balanced_score`)
meets the first by construction and not the second. This computes the scores tried instead,
from the verdicts and scores the suites already store (nothing is executed again), so that the
reasons they were not adopted can be checked:

- ``default``: the default score (requirements even within the "moves" and "holds" classes);
- ``families`` / ``cases``: the same balanced accuracy, families / cases weighed evenly;
- ``scale-free``: the default score without the requirements that read the output scale
  (calibration's level cases and orders, dynamic range), since a rank correlation with people
  is blind to scale;
- ``concordance``: on the cases whose relation has a direction (its mirror differs), +1 where
  the target passes the relation, -1 where it passes the mirror, 0 otherwise, requirements and
  families weighed evenly, as (1 + mean) / 2. A scorer that never moves and one that moves at
  random both get 0.5 (the default score gives the random one less); a level case counts for
  a target only where staying at its own level passes neither band.

With the politeness benchmark's suite too, where it exists (a second task, its own human
agreement). For each suite: Spearman with human agreement over the candidates and each null scorer's
place (1 + the candidates above it, of candidates + 1); then, with both strong derivations,
Kendall between their orders of the candidates (does the score reproduce?).

    .venv/bin/python benchmarks/bench_ranking.py --quick     (writes out/bench-ranking/)
    (cd benchmarks && ../.venv/bin/python bench_ranking_politeness.py)   (optional)
    .venv/bin/python experiments/ranking_scores.py           (reads them; a minute)
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy.stats import kendalltau, spearmanr

from sane.records import Verdict
from sane.relations import check_relation, mirror
from sane.relations._kind import NEVER_MOVING_LEVELS
from sane.reporting._build import ReportContext
from sane.stats import CaseOutcome, balanced_score
from sane.suites.store import SuiteStore

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
import bench_ranking  # the benchmarks' data splits and human agreement
import bench_ranking_politeness

SCALE_READING = {"calibration", "dynamic_range"}


def _context(path: Path) -> ReportContext:
    store = SuiteStore(path, readonly=True)
    try:
        return ReportContext(store.snapshot(), n_resamples=0)
    finally:
        store.close()


def _regrouped(outcomes: list[CaseOutcome], family: Callable[[CaseOutcome], str]) -> float:
    return balanced_score(
        [
            CaseOutcome(
                family=family(o),
                requirement="all",
                passed=o.passed,
                discriminating=o.discriminating,
                case=o.case,
            )
            for o in outcomes
        ],
        n_resamples=0,
    ).value


def balanced_variants(context: ReportContext) -> dict[str, dict[str, float]]:
    """score name -> target -> value, for the balanced-accuracy scores."""
    found: dict[str, dict[str, float]] = defaultdict(dict)
    for target, outcomes in context.case_outcomes.items():
        found["default"][target] = balanced_score(outcomes, n_resamples=0).value
        found["families"][target] = _regrouped(outcomes, lambda o: o.family)
        found["cases"][target] = _regrouped(outcomes, lambda o: o.case)
        kept = [o for o in outcomes if o.requirement not in SCALE_READING]
        found["scale-free"][target] = balanced_score(kept, n_resamples=0).value
    return found


def _signed(relation, scores, tolerance: float, higher_is_better: bool) -> int:
    def passes(r) -> bool:
        return check_relation(r, scores, tolerance, higher_is_better).verdict is Verdict.passed

    return int(passes(relation)) - int(passes(mirror(relation)))


def concordance(context: ReportContext) -> dict[str, float]:
    """target -> (1 + mean signed agreement) / 2 over its directional cases (module doc)."""
    hib = context.snapshot.spec.output.higher_is_better
    signed: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for execution in context.counted[0]:
        if execution.verdict is Verdict.error:
            continue
        recipe = context.recipes[execution.recipe_id]
        relation, tolerance = recipe.relation, execution.tolerance or 0.0
        if mirror(relation) == relation:
            continue  # no direction: a perfect scorer and a still one pass it alike
        level = context.snapshot.levels.get(execution.target)
        levels = NEVER_MOVING_LEVELS if level is None else (level,)
        still = ({role: [at] * 2 for role in relation.roles()} for at in levels)
        if any(_signed(relation, scores, tolerance, hib) for scores in still):
            continue  # staying at the target's level would decide it
        value = _signed(relation, execution.normalised, tolerance, hib)
        signed[execution.target][recipe.requirement.value][recipe.id].append(value)
    return {
        target: (1 + float(np.mean([np.mean([np.mean(v) for v in f.values()])
                                    for f in by_requirement.values()]))) / 2
        for target, by_requirement in signed.items()
    }  # fmt: skip


def measured(scores: dict[str, float], human: dict[str, float]) -> dict:
    candidates = sorted(t for t in human if t in scores and not t.startswith("null-"))
    rho = spearmanr([scores[t] for t in candidates], [human[t] for t in candidates]).statistic
    places = {
        n: 1 + sum(scores[t] > scores[n] for t in candidates)
        for n in sorted(scores)
        if n.startswith("null-")
    }
    return {"spearman": float(rho), "null_places": places, "of": len(candidates) + 1}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "out" / "bench-ranking",
                        help="the folder bench_ranking.py wrote")  # fmt: skip
    parser.add_argument("--politeness-out", type=Path,
                        default=ROOT / "out" / "bench-ranking-politeness",
                        help="the folder bench_ranking_politeness.py wrote (optional)")  # fmt: skip
    args = parser.parse_args(argv)
    suites = {n: args.out / f"{n}.db" for n in ("operators", *bench_ranking.STRONG_RECORDINGS)}
    missing = [str(p) for p in suites.values() if not p.exists()]
    if missing:
        print(f"no suite at {', '.join(missing)}: run benchmarks/bench_ranking.py --quick first")
        return 2
    _, held_out = bench_ranking.split(bench_ranking.load_qags(bench_ranking.QAGS), 3, seed=0)
    human, _ = bench_ranking.human_agreement(suites["operators"], held_out, args.out)
    humans = dict.fromkeys(suites, human)
    politeness = args.politeness_out / "strong.db"
    if politeness.exists():
        _, requests = bench_ranking_politeness.load(bench_ranking_politeness.DATA, 6, 1500, seed=0)
        suites["politeness"] = politeness
        humans["politeness"], _ = bench_ranking.human_agreement(
            politeness, {"wikipedia": requests}, args.politeness_out
        )
    scores: dict[str, dict[str, dict[str, float]]] = {}
    for name, path in suites.items():
        context = _context(path)
        scores[name] = {**balanced_variants(context), "concordance": concordance(context)}
    summary: dict = {}
    for score in ("default", "families", "cases", "scale-free", "concordance"):
        summary[score] = {name: measured(by[score], humans[name]) for name, by in scores.items()}
        a, b = scores["strong"][score], scores["strong_b"][score]
        shared = sorted(t for t in a if t in b and t in human and not t.startswith("null-"))
        tau = kendalltau([a[t] for t in shared], [b[t] for t in shared]).statistic
        summary[score]["reproducibility_kendall"] = float(tau)
        cells = [
            f"{name} {m['spearman']:+.3f} (nulls {', '.join(map(str, m['null_places'].values()))}"
            f" of {m['of']})"
            for name, m in summary[score].items()
            if isinstance(m, dict)
        ]
        print(f"{score:12s} " + "; ".join(cells) + f"; strong vs strong_b Kendall {tau:+.2f}")
    print(
        "null places in order: " + ", ".join(next(iter(summary["default"].values()))["null_places"])
    )
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
