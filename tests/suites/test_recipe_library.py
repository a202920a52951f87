"""The recipe library: accumulation, the subset analysis, and seeding a new scorer."""

from __future__ import annotations

from suite_builders import build_suite, write_spec
from typer.testing import CliRunner

from sane.cli import app
from sane.records import Decision, Question
from sane.suites.recipe_library import RecipeLibrary, subset_analysis
from sane.suites.store import SuiteStore
from sane.validators.guards import recipe_rejections


def test_subset_analysis_by_hand():
    rows = subset_analysis({"A": {"1", "2"}, "B": {"2", "3"}, "C": {"4"}})
    assert [(r.size, r.subsets, r.min, r.max) for r in rows] == [
        (1, 3, 1, 2),
        (2, 3, 3, 3),
        (3, 1, 4, 4),
    ]
    assert rows[0].mean == 5 / 3 and rows[1].mean == 3.0


def test_library_counts_unique_aligned_recipes_across_scorers(suite_dir, scripted):
    a = build_suite(suite_dir, scripted, "a.db", execute=False)
    write_spec(suite_dir, name="other-scorer")
    b = build_suite(suite_dir, scripted, "b.db", spec="other-scorer", execute=False)
    library = RecipeLibrary(suite_dir / "lib.db", create=True)
    first = library.add_suite(a)
    again = library.add_suite(a)  # idempotent
    second = library.add_suite(b)
    stats = library.stats()
    library.close()
    # rec-1-1 (decrease) and rec-2-1 (invariant) are aligned; both validated at tau=2
    assert (first.aligned, first.validated, first.new_keys) == (2, 2, 2)
    assert again.new_keys == 0 and again.library_unique == 2
    # the same scripted recipes for another scorer: same keys, nothing new
    assert second.new_keys == 0
    assert stats.scorers == {"other-scorer": 2, "tiny-faithfulness": 2}
    assert stats.unique_aligned == 2
    assert [(r.size, r.mean) for r in stats.subsets] == [(1, 2.0), (2, 2.0)]


def test_library_generator_adds_reused_recipes_that_go_through_the_panel(
    suite_dir, scripted, monkeypatch
):
    from sane import similarity as compare

    lexical = compare.choose_similarity("lexical")
    monkeypatch.setattr(compare, "choose_similarity", lambda method="auto": lexical)
    a = build_suite(suite_dir, scripted, "a.db", execute=False)
    runner = CliRunner()
    added = runner.invoke(app, ["library", "add", str(a), "--library", str(suite_dir / "lib.db")])
    assert added.exit_code == 0, added.output
    write_spec(suite_dir, name="new-scorer", criterion="Whether every claim is supported.")
    seeded = build_suite(
        suite_dir,
        scripted,
        "seeded.db",
        spec="new-scorer",
        generator=f"library:{suite_dir / 'lib.db'}",
        execute=False,
    )
    store = SuiteStore(seeded)
    recipes = store.recipes()
    alignment = store.decisions(Question.alignment)
    capabilities = {c.id: c for c in store.capabilities()}
    store.close()
    reused = [r for r in recipes if r.generator.startswith("library:")]
    assert {r.generator for r in reused} == {"library:tiny-faithfulness"}
    assert {r.name for r in reused} == {"add unsupported claim", "double spaces"}
    assert all(r.id.startswith("rec-lib-") for r in reused)
    assert {r.generator for r in recipes if r not in reused} == {"derived"}
    # reused recipes are candidates: each has a panel decision of its own, unless it repeats
    # a recipe the agent derived again, which the duplicate guard merges before the panel
    merged = recipe_rejections(recipes)
    for r in reused:
        if r.id in merged:
            assert merged[r.id][0] == "recipe_duplicate"
        else:
            assert alignment[r.id].decision is Decision.yes
    assert all(
        "reused from tiny-faithfulness" in capabilities[r.capability_id].name for r in reused
    )

    stats = runner.invoke(app, ["library", "stats", "--library", str(suite_dir / "lib.db")])
    assert stats.exit_code == 0 and "2 unique aligned recipes" in stats.output


def test_library_generator_needs_an_existing_library(suite_dir, scripted):
    import pytest

    from sane.errors import InputError
    from sane.generators import get_generator

    with pytest.raises(InputError):
        get_generator(f"library:{suite_dir / 'missing.db'}")
    with pytest.raises(InputError):
        get_generator("library")
