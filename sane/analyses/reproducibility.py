"""Suite reproducibility: do two independently generated suites of one scorer agree?

`sane compare SUITE_A SUITE_B` answers three questions (docs/statistics.md):

- **Profiles**: per target run on both suites, the MAE between its requirement-level
  profiles (mean normalised score change per requirement; behavioral-correctness paper,
  section 3.6: ``MAE_assump(M) = mean_a |Delta_a^(A)(M) - Delta_a^(B)(M)|``). The MAE of the
  per-requirement pass rates is given next to it.
- **Pairs**: per pair of targets rated in both suites, does one still beat the other: the
  test the ranking's ranks rest on (the paired sign-flip test of default scores,
  Holm-adjusted: sane.stats._balanced_comparison) in each suite and "A beats B in both
  suites / only in one / in neither"; the pass rates' McNemar test and its verdict beside.
  Defined from two targets on, where rank agreement is not.
- **Rankings**: Kendall's tau-b (and Spearman's rho) between the two suites' default scores
  (what the ranking is ordered by) over their common targets, with bootstrap intervals; the
  same between their pass rates beside. A conclusion that reproduces is the ranking's, so
  the default score leads: the pass rate is the score a scorer that never moves can win.
- **Recipes**: how many aligned recipes of one suite have a counterpart in the other, a
  counterpart being the most similar recipe when its similarity reaches a threshold.
  Similarity is the cosine of all-MiniLM-L6-v2 sentence embeddings of
  ``"name. instruction"`` (threshold :data:`EMBEDDING_THRESHOLD`); when that embedded model
  is not installed, difflib's ratio on the lower-cased texts (:data:`LEXICAL_THRESHOLD`).
  The output says which was used.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from pydantic import Field

from sane._record import Record
from sane.errors import InputError
from sane.records import Recipe, SuiteSnapshot
from sane.reporting import Report, build_report
from sane.similarity import choose_similarity
from sane.stats import (
    PairedComparison,
    ProfileDistance,
    RankCorrelation,
    ScoreComparison,
    profile_mae,
    rank_correlation,
)
from sane.suites.store import SuiteStore
from sane.validators.families import aligned_recipe_ids

# a paired test of two targets in one suite: default scores (the ranks') or pass rates
Comparison = PairedComparison | ScoreComparison


class SuiteSide(Record):
    path: str
    model: str
    seed: int
    created: str
    aligned_recipes: int
    validated_families: int


class TargetReproducibility(Record):
    """One target's profile distance between the suites, and its scores in each."""

    profile: ProfileDistance
    pass_rate_profile: ProfileDistance
    pass_rate_a: float | None = None
    pass_rate_b: float | None = None
    default_score_a: float | None = None
    default_score_b: float | None = None


class RecipeMatch(Record):
    recipe: str
    counterpart: str | None
    similarity: float


class RecipeMatching(Record):
    """Aligned recipes with a counterpart in the other suite, in both directions."""

    method: str
    threshold: float
    a_total: int
    b_total: int
    a_matched: int
    b_matched: int
    a_fraction: float | None = None
    b_fraction: float | None = None
    matches_a: list[RecipeMatch] = Field(default_factory=list)
    matches_b: list[RecipeMatch] = Field(default_factory=list)
    note: str | None = None


class PairReproduction(Record):
    """Does one target still beat another? The test the ranking's ranks rest on (default
    scores, paired sign-flip) in each suite, seen from `a` (a positive difference is `a`
    scoring higher), and the verdict in words; the pass rates' McNemar test and its verdict
    beside."""

    a: str
    b: str
    in_a: ScoreComparison | None = None  # the pair's default scores in suite A
    in_b: ScoreComparison | None = None  # in suite B
    verdict: str
    pass_rate_in_a: PairedComparison | None = None  # the pair's pass rates in suite A
    pass_rate_in_b: PairedComparison | None = None
    pass_rate_verdict: str = ""


class SuiteComparison(Record):
    scorer: str
    a: SuiteSide
    b: SuiteSide
    targets: dict[str, TargetReproducibility]
    mean_profile_mae: float | None = None
    # per pair of targets rated in both suites: does the one still beat the other
    pairs: list[PairReproduction] = Field(default_factory=list)
    # the two suites' default scores (the ranking's order) over their common targets, and
    # their pass rates
    ranking_agreement: RankCorrelation
    pass_rate_agreement: RankCorrelation
    recipes: RecipeMatching
    only_in_a: list[str] = Field(default_factory=list)
    only_in_b: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


def recipe_text(recipe: Recipe) -> str:
    return f"{recipe.name}. {recipe.instruction}"


def _matches(
    names: list[str], others: list[str], sims: np.ndarray, threshold: float
) -> list[RecipeMatch]:
    result = []
    for i, name in enumerate(names):
        if not others:
            result.append(RecipeMatch(recipe=name, counterpart=None, similarity=0.0))
            continue
        j = int(np.argmax(sims[i]))
        best = float(sims[i, j])
        result.append(
            RecipeMatch(
                recipe=name, counterpart=others[j] if best >= threshold else None, similarity=best
            )
        )
    return result


def match_recipes(a: list[Recipe], b: list[Recipe], method: str = "auto") -> RecipeMatching:
    """Counterparts of each aligned recipe of one suite in the other (both directions)."""
    label, similarity, threshold = choose_similarity(method)
    note = None
    if a and b:
        sims = similarity([recipe_text(r) for r in a], [recipe_text(r) for r in b])
    else:
        sims = np.zeros((len(a), len(b)))
        note = "a suite has no aligned recipe: nothing to match"
    ids_a, ids_b = [r.id for r in a], [r.id for r in b]
    matches_a = _matches(ids_a, ids_b, sims, threshold)
    matches_b = _matches(ids_b, ids_a, sims.T, threshold)
    a_matched = sum(m.counterpart is not None for m in matches_a)
    b_matched = sum(m.counterpart is not None for m in matches_b)
    return RecipeMatching(
        method=label,
        threshold=threshold,
        a_total=len(a),
        b_total=len(b),
        a_matched=a_matched,
        b_matched=b_matched,
        a_fraction=a_matched / len(a) if a else None,
        b_fraction=b_matched / len(b) if b else None,
        matches_a=matches_a,
        matches_b=matches_b,
        note=note,
    )


# ------------------------------------------------------------------ comparison


def _pair(comparisons: Sequence[Comparison], a: str, b: str) -> Comparison | None:
    """The report's paired test of `a` and `b`, seen from `a` (None: never tested)."""
    found = next((c for c in comparisons if {c.a, c.b} == {a, b}), None)
    return None if found is None else found.seen_from(a)


def pair_verdict(a: str, b: str, in_a: Comparison | None, in_b: Comparison | None) -> str:
    """ "A beats B in both suites / only in suite A / in neither", from each suite's paired
    test (significant after Holm's correction); opposite winners are said as such."""
    missing = [side for side, c in (("A", in_a), ("B", in_b)) if c is None or not c.cases]
    if missing:
        return f"{a} and {b} share no judged case in suite {' and '.join(missing)}"
    winners = [c.better if c is not None else None for c in (in_a, in_b)]
    first, second = winners
    if first is not None and first == second:
        loser = b if first == a else a
        return f"{first} beats {loser} in both suites"
    if first is not None and second is not None:
        return f"{first} beats the other in suite A, {second} in suite B: the suites disagree"
    if first is not None or second is not None:
        winner = first or second
        loser = b if winner == a else a
        where, other = ("A", "B") if first else ("B", "A")
        return f"{winner} beats {loser} only in suite {where} (not separated in suite {other})"
    return f"neither {a} nor {b} beats the other in either suite"


def pair_reproductions(
    report_a: Report, report_b: Report, names: list[str]
) -> list[PairReproduction]:
    """Every pair of `names` (targets rated in both suites), in order."""
    pairs = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            in_a = _pair(report_a.default_score_comparisons, a, b)
            in_b = _pair(report_b.default_score_comparisons, a, b)
            rate_a, rate_b = _pair(report_a.comparisons, a, b), _pair(report_b.comparisons, a, b)
            pairs.append(
                PairReproduction(
                    a=a,
                    b=b,
                    in_a=in_a,
                    in_b=in_b,
                    verdict=pair_verdict(a, b, in_a, in_b),
                    pass_rate_in_a=rate_a,
                    pass_rate_in_b=rate_b,
                    pass_rate_verdict=pair_verdict(a, b, rate_a, rate_b),
                )
            )
    return pairs


def _default_score(report: Report, name: str) -> float | None:
    score = report.default_scores.get(name)
    return None if score is None else score.value


def _scored(report: Report, names: set[str]) -> dict[str, float]:
    """The default scores of `names` (candidates, never the planted null scorers), where
    defined."""
    scores = {n: _default_score(report, n) for n in names}
    return {n: v for n, v in scores.items() if v is not None}


def _aligned(snapshot: SuiteSnapshot) -> list[Recipe]:
    aligned = aligned_recipe_ids(snapshot.recipes, snapshot.alignment, snapshot.config)
    return [r for r in snapshot.recipes if r.id in aligned]


def _side(path: Path, snapshot: SuiteSnapshot, report: Report) -> SuiteSide:
    return SuiteSide(
        path=str(path),
        model=snapshot.config.model,
        seed=snapshot.config.seed,
        created=snapshot.created,
        aligned_recipes=report.validity.aligned_recipes,
        validated_families=report.validity.validated_families,
    )


def _load(path: str | Path) -> SuiteSnapshot:
    store = SuiteStore(path, readonly=True)
    try:
        return store.snapshot()
    finally:
        store.close()


def compare_snapshots(
    a: SuiteSnapshot,
    b: SuiteSnapshot,
    *,
    paths: tuple[str | Path, str | Path] = ("A", "B"),
    similarity: str = "auto",
    n_resamples: int = 2000,
    seed: int = 0,
) -> SuiteComparison:
    """Compare two suites of the same scorer (same spec name); InputError otherwise."""
    if a.spec.name != b.spec.name:
        raise InputError(
            str(paths[1]), "spec.name", f"scorer {b.spec.name!r} is not {a.spec.name!r}"
        )
    warnings = []
    if a.spec.criterion != b.spec.criterion:
        warnings.append("the two suites' criteria differ in wording")
    report_a = build_report(a, n_resamples=n_resamples, seed=seed)
    report_b = build_report(b, n_resamples=n_resamples, seed=seed)
    rated_a = {n for n, t in report_a.targets.items() if t.pass_rate is not None}
    rated_b = {n for n, t in report_b.targets.items() if t.pass_rate is not None}
    targets = {}
    for name in sorted(rated_a & rated_b):
        ta, tb = report_a.targets[name], report_b.targets[name]
        targets[name] = TargetReproducibility(
            profile=profile_mae(ta.profile.by_requirement, tb.profile.by_requirement),
            pass_rate_profile=profile_mae(
                {k: g.pass_rate for k, g in ta.by_requirement.items()},
                {k: g.pass_rate for k, g in tb.by_requirement.items()},
            ),
            pass_rate_a=ta.pass_rate,
            pass_rate_b=tb.pass_rate,
            default_score_a=_default_score(report_a, name),
            default_score_b=_default_score(report_b, name),
        )
    maes = [t.profile.mae for t in targets.values() if t.profile.mae is not None]
    return SuiteComparison(
        scorer=a.spec.name,
        a=_side(Path(paths[0]), a, report_a),
        b=_side(Path(paths[1]), b, report_b),
        targets=targets,
        mean_profile_mae=float(np.mean(maes)) if maes else None,
        pairs=pair_reproductions(report_a, report_b, sorted(rated_a & rated_b)),
        ranking_agreement=rank_correlation(
            _scored(report_a, rated_a),
            _scored(report_b, rated_b),
            n_resamples=n_resamples,
            seed=seed,
        ),
        pass_rate_agreement=rank_correlation(
            {n: report_a.targets[n].pass_rate for n in rated_a},  # type: ignore[misc]
            {n: report_b.targets[n].pass_rate for n in rated_b},  # type: ignore[misc]
            n_resamples=n_resamples,
            seed=seed,
        ),
        recipes=match_recipes(_aligned(a), _aligned(b), similarity),
        only_in_a=sorted(rated_a - rated_b),
        only_in_b=sorted(rated_b - rated_a),
        warnings=warnings,
    )


def compare_suites(
    suite_a: str | Path,
    suite_b: str | Path,
    *,
    similarity: str = "auto",
    n_resamples: int = 2000,
    seed: int = 0,
) -> SuiteComparison:
    """Load two suite files and compare them (see the module docstring)."""
    return compare_snapshots(
        _load(suite_a),
        _load(suite_b),
        paths=(suite_a, suite_b),
        similarity=similarity,
        n_resamples=n_resamples,
        seed=seed,
    )
