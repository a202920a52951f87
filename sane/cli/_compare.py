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
    from sane.analyses.reproducibility import SuiteComparison


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _fmt_ci(ci: tuple[float, float] | None) -> str:
    return "-" if ci is None else f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def comparison_tables(result: SuiteComparison) -> list[Table]:
    """Profiles per target, ranking agreement and recipe counterparts as rich tables."""
    profiles = Table(
        title=f"{result.scorer}: A = {result.a.path} (seed {result.a.seed}), "
        f"B = {result.b.path} (seed {result.b.seed})"
    )
    for column in (
        "target",
        "profile MAE",
        "pass-rate profile MAE",
        "requirements",
        "pass rate A",
        "pass rate B",
    ):
        profiles.add_column(column)
    for name, target in result.targets.items():
        profiles.add_row(
            name,
            _fmt(target.profile.mae),
            _fmt(target.pass_rate_profile.mae),
            ", ".join(target.profile.requirements) or "-",
            _fmt(target.pass_rate_a),
            _fmt(target.pass_rate_b),
        )
    profiles.caption = f"mean profile MAE {_fmt(result.mean_profile_mae)}"
    agreement = result.ranking_agreement
    ranking = Table(title=f"Ranking agreement over {agreement.n} common targets")
    for column in ("statistic", "value", "bootstrap 95% CI"):
        ranking.add_column(column)
    ranking.add_row("Kendall tau-b", _fmt(agreement.kendall), _fmt_ci(agreement.kendall_ci))
    ranking.add_row("Spearman rho", _fmt(agreement.spearman), _fmt_ci(agreement.spearman_ci))
    ranking.caption = agreement.note
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
    return [profiles, ranking, matching]


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
    """Compare two suites of one scorer: profile MAE, ranking agreement, recipe overlap."""
    with errors_to_exit_codes():
        from sane.analyses.reproducibility import compare_suites

        result = compare_suites(suite_a, suite_b, similarity=similarity, seed=seed)
    if as_json:
        sys.stdout.write(json.dumps(result.model_dump(mode="json"), indent=2) + "\n")
        return
    for table in comparison_tables(result):
        out.print(table)
    for warning in result.warnings:
        say(f"warning: {warning}")
