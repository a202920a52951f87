"""`sane compare`: reproducibility of two independently generated suites of one scorer."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from sane.cli._common import app, errors_to_exit_codes, out, say

if TYPE_CHECKING:
    from sane.analyses.reproducibility import Comparison, SuiteComparison
    from sane.stats import RankCorrelation


def _fmt(value: float | None) -> str:
    # + 0.0: a bound of -0.0004 prints as 0.000, not as -0.000 (which read as "below zero")
    return "-" if value is None else f"{round(value, 3) + 0.0:.3f}"


def _fmt_ci(ci: tuple[float, float] | None) -> str:
    return "-" if ci is None else f"[{_fmt(ci[0])}, {_fmt(ci[1])}]"


def _fmt_p(p: float | None) -> str:
    return "p=-" if p is None else "p<0.001" if p < 0.001 else f"p={_fmt(p)}"


def comparison_tables(result: SuiteComparison) -> list[Table]:
    """Profiles per target, ranking agreement and recipe counterparts as rich tables."""
    profiles = Table(
        title=f"{result.scorer}: A = {result.a.path} (seed {result.a.seed}), "
        f"B = {result.b.path} (seed {result.b.seed})"
    )
    for column in (
        "target",
        "default score A",
        "default score B",
        "pass rate A",
        "pass rate B",
        "profile MAE",
        "pass-rate profile MAE",
        "requirements",
    ):
        profiles.add_column(column)
    for name, target in result.targets.items():
        profiles.add_row(
            name,
            _fmt(target.default_score_a),
            _fmt(target.default_score_b),
            _fmt(target.pass_rate_a),
            _fmt(target.pass_rate_b),
            _fmt(target.profile.mae),
            _fmt(target.pass_rate_profile.mae),
            ", ".join(target.profile.requirements) or "-",
        )
    profiles.caption = f"mean profile MAE {_fmt(result.mean_profile_mae)}"
    tables = [profiles]
    if result.pairs:
        tables.append(pairs_table(result))
    scores = {"default score": result.ranking_agreement, "pass rate": result.pass_rate_agreement}
    if any(_defined(agreement) for agreement in scores.values()):
        ranking = Table(title="Ranking agreement over the common targets")
        for column in ("score", "targets", "statistic", "value", "bootstrap 95% CI"):
            ranking.add_column(column)
        for score, agreement in scores.items():
            n = str(agreement.n)
            ranking.add_row(
                score, n, "Kendall tau-b", _fmt(agreement.kendall), _fmt_ci(agreement.kendall_ci)
            )
            ranking.add_row(
                "", "", "Spearman rho", _fmt(agreement.spearman), _fmt_ci(agreement.spearman_ci)
            )
        ranking.caption = (
            "the default score orders each suite's ranking (a scorer that never moves gets 0.5 "
            "on it); the pass rate beside"
        )
        tables.append(ranking)
    recipes = result.recipes
    matching = Table(title=f"Aligned recipes with a counterpart ({recipes.method})")
    for column in ("suite", "aligned recipes", "with a counterpart", "fraction"):
        matching.add_column(column)
    matching.add_row(
        "A in B", str(recipes.a_total), str(recipes.a_matched), _fmt(recipes.a_fraction)
    )
    matching.add_row(
        "B in A", str(recipes.b_total), str(recipes.b_matched), _fmt(recipes.b_fraction)
    )
    matching.caption = recipes.note
    return [*tables, matching]


def _defined(agreement: RankCorrelation) -> bool:
    return agreement.kendall is not None or agreement.spearman is not None


def _pair_cell(pair: Comparison | None) -> str:
    """One suite's paired test of a pair: the difference, its interval, the Holm p."""
    if pair is None or pair.difference is None:
        return "-"
    return f"{pair.difference:+.3f} {_fmt_ci(pair.difference_ci)} {_fmt_p(pair.p_adjusted)}"


def pairs_table(result: SuiteComparison) -> Table:
    """Does A still beat B? Per pair, each suite's paired test and the verdict."""
    table = Table(title="Does one target still beat another? (paired, on the cases both judged)")
    columns = ("first vs. second target", "in suite A: default score, first - second [95% CI] p",
               "in suite B: the same", "verdict (default score)", "verdict by pass rate")  # fmt: skip
    for column in columns:
        table.add_column(column)
    for pair in result.pairs:
        table.add_row(
            f"{pair.a} vs. {pair.b}",
            _pair_cell(pair.in_a),
            _pair_cell(pair.in_b),
            pair.verdict,
            pair.pass_rate_verdict,
        )
    table.caption = (
        "beats: a significantly higher default score on the cases both judged, by the paired "
        "sign-flip test each suite's ranking rests on (p Holm-adjusted over the suite's pairs, "
        "5%; the interval is the paired bootstrap's, not adjusted, so it can leave out 0 where "
        "p is large); not separated: no significant difference. Verdict by pass rate: "
        "McNemar's exact test of the pass rates, Holm-adjusted, 5%; it can differ, since the "
        "pass rate counts every case alike and a scorer that never moves passes many of them"
    )
    return table


def agreement_line(result: SuiteComparison) -> str | None:
    """Why rank agreement is not shown, where it is undefined (fewer than 3 targets)."""
    agreement = result.ranking_agreement
    if _defined(agreement) or _defined(result.pass_rate_agreement):
        return None
    return f"rank agreement: not defined here ({agreement.note}); the pairs above answer it"


@app.command()
def compare(
    suite_a: Annotated[Path, typer.Argument(help="First suite file.")],
    suite_b: Annotated[Path, typer.Argument(help="Second suite file (same scorer).")],
    similarity: Annotated[
        str,
        typer.Option(help="Recipe matching: auto (embedding if installed), embedding, lexical."),
    ] = "auto",
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Compare two suites of one scorer: does each target still beat another, profile MAE,
    ranking agreement (from 3 targets), recipe overlap."""
    with errors_to_exit_codes():
        from sane.analyses.reproducibility import compare_suites

        result = compare_suites(suite_a, suite_b, similarity=similarity, seed=seed)
    if as_json:
        sys.stdout.write(json.dumps(result.model_dump(mode="json"), indent=2) + "\n")
        return
    for table in comparison_tables(result):
        out.print(table)
    line = agreement_line(result)
    if line is not None:
        say(line)
    for warning in result.warnings:
        say(f"warning: {warning}")
