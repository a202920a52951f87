"""Regenerating a suite: same seed replays identically, another seed compares finitely."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from suite_builders import build_suite
from typer.testing import CliRunner

import sane
from sane.analyses.reproducibility import compare_suites, match_recipes
from sane.cli import app
from sane.similarity import lexical_similarity
from sane.suites.store import SuiteStore


def _calls(path: Path):
    store = SuiteStore(path)
    try:
        return store.calls()
    finally:
        store.close()


def _comparable(report) -> dict:
    """The report without what legitimately differs between two runs (time, call flags)."""
    document = report.model_dump(mode="json")
    document["suite"].pop("created")
    document.pop("calls")
    for item in document["errors"]["items"]:
        item.pop("created")
    return document


def test_pass_rates_differ_so_rankings_are_informative(suite_dir, scripted):
    report = sane.report(build_suite(suite_dir, scripted, "a.db"))
    rates = {e.target: e.pass_rate for e in report.ranking}
    assert rates == {"careful": 1.0, "spacey": 0.6, "lazy": 0.4, "broken": None}
    assert report.validity.validated_families == 2


def test_same_seed_regenerates_identically_from_the_cache(suite_dir, scripted):
    a = build_suite(suite_dir, scripted, "a.db", seed=7)
    b = build_suite(suite_dir, scripted, "b.db", seed=7)
    assert all(call.cached for call in _calls(b) if call.error is None)
    assert _comparable(sane.report(a)) == _comparable(sane.report(b))
    comparison = compare_suites(a, b, similarity="lexical")
    assert comparison.mean_profile_mae == 0.0
    assert comparison.ranking_agreement.kendall == pytest.approx(1.0)
    assert comparison.recipes.a_matched == comparison.recipes.a_total == 2


def test_different_seeds_make_fresh_calls_and_a_finite_comparison(suite_dir, scripted):
    a = build_suite(suite_dir, scripted, "a.db", seed=0)
    b = build_suite(suite_dir, scripted, "b.db", seed=1)
    keys_a = {call.key for call in _calls(a)}
    fresh = [call for call in _calls(b) if call.error is None]
    assert fresh and not any(call.cached for call in fresh)
    assert keys_a.isdisjoint(call.key for call in fresh)

    document = compare_suites(a, b, similarity="lexical").model_dump(mode="json")
    numbers = [document["mean_profile_mae"]]
    for target in ("careful", "spacey", "lazy"):
        entry = document["targets"][target]
        numbers += [entry["profile"]["mae"], entry["pass_rate_profile"]["mae"]]
        assert entry["profile"]["requirements"] == ["monotonicity", "robustness"]
    agreement = document["ranking_agreement"]
    numbers += [agreement["kendall"], agreement["spearman"], *agreement["kendall_ci"]]
    recipes = document["recipes"]
    numbers += [recipes["a_fraction"], recipes["b_fraction"]]
    assert all(isinstance(v, float) and math.isfinite(v) for v in numbers), numbers
    assert recipes["method"].startswith("lexical")
    assert document["a"]["seed"] == 0 and document["b"]["seed"] == 1


def test_compare_refuses_suites_of_different_scorers(suite_dir, scripted):
    from suite_builders import write_spec

    a = build_suite(suite_dir, scripted, "a.db", execute=False)
    write_spec(suite_dir, name="other-scorer")
    b = build_suite(suite_dir, scripted, "b.db", spec="other-scorer", execute=False)
    result = CliRunner().invoke(app, ["compare", str(a), str(b), "--similarity", "lexical"])
    assert result.exit_code == 2
    assert "other-scorer" in result.output


def test_compare_cli_prints_json_and_tables(suite_dir, scripted):
    a = build_suite(suite_dir, scripted, "a.db", seed=0)
    b = build_suite(suite_dir, scripted, "b.db", seed=2)
    runner = CliRunner()
    result = runner.invoke(app, ["compare", str(a), str(b), "--similarity", "lexical", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["scorer"] == "tiny-faithfulness"
    table = runner.invoke(app, ["compare", str(a), str(b), "--similarity", "lexical"])
    assert table.exit_code == 0 and "Kendall tau-b" in table.output and "lexical" in table.output


def test_recipe_matching_counts_counterparts_by_threshold():
    from sane.records import PairRelation, Recipe

    def recipe(rid: str, name: str, instruction: str) -> Recipe:
        return Recipe(
            id=rid,
            capability_id="cap-1",
            requirement="robustness",
            name=name,
            instruction=instruction,
            variant_roles=["original", "perturbed"],
            relation=PairRelation(kind="invariant"),
            rationale="r",
        )

    a = [recipe("a1", "double spaces", "Replace single spaces with double spaces.")]
    b = [
        recipe("b1", "double spacing", "Replace single spaces by double spaces."),
        recipe("b2", "negate a claim", "Negate the main claim of the summary."),
    ]
    sims = lexical_similarity(["abc"], ["abc", "xyz"])
    assert sims[0, 0] == 1.0 and sims[0, 1] == 0.0
    matching = match_recipes(a, b, "lexical")
    assert (matching.a_matched, matching.b_matched) == (1, 1)
    assert matching.matches_a[0].counterpart == "b1"
    assert [m.counterpart for m in matching.matches_b] == ["a1", None]


@pytest.mark.local_models
def test_recipe_matching_with_the_embedded_minilm():
    from sane.similarity import choose_similarity, embedding_similarity

    label, _, _ = choose_similarity("embedding")
    assert label.startswith("embedding:all-minilm-l6-v2")
    sims = embedding_similarity(
        ["Replace single spaces with double spaces."],
        ["Double every space in the text.", "Insert a false date into the summary."],
    )
    assert sims[0, 0] > sims[0, 1]
