"""Each fixed set runs end to end on the scripted model, through the unchanged later stages."""

from __future__ import annotations

from pathlib import Path

import pytest

import sane
from sane.edits import TransformInput, apply_transform
from sane.generators import fixed_set_names, load_fixed_set
from sane.llm import LLMSettings
from sane.records import Decision, Question, Verdict
from sane.suites.store import SuiteStore

CASES = 3


def _generate(workdir: Path, settings: LLMSettings, generator: str, suite: str) -> Path:
    path = workdir / suite
    sane.generate(
        workdir / "tiny_spec.yaml",
        suite=path,
        model="scripted",
        votes=3,
        cases=CASES,
        max_capabilities=2,
        recipes_per_capability=1,
        generator=generator,
        llm=settings,
    )
    return path


@pytest.mark.parametrize("name", fixed_set_names())
def test_fixed_set_runs_end_to_end(workdir: Path, settings: LLMSettings, name: str) -> None:
    path = _generate(workdir, settings, f"fixed:{name}", "suite.db")
    store = SuiteStore(path)
    snapshot = store.snapshot()
    calls = store.calls()
    alignment = store.decisions(Question.alignment)
    store.close()

    fixed = load_fixed_set(name)
    assert snapshot.config.generator == f"fixed:{name}"
    assert [c.id for c in snapshot.capabilities] == [c.id for c in fixed.capability_records()]
    assert len(snapshot.recipes) == sum(len(c.recipes) for c in fixed.capabilities)
    # No model call derived capabilities or recipes: the set supplied them.
    assert not [c for c in calls if c.task in {"capabilities", "recipes"}]
    # The alignment panel still voted on every fixed recipe (it stops once 2 of 3 agree).
    real = {subject for subject in alignment if not subject.startswith("control:")}
    assert real == {r.id for r in snapshot.recipes}
    assert all(2 <= len(d.votes) <= 3 for d in alignment.values())
    for misaligned in ("rec-label-flip", "rec-random-replacement"):
        if misaligned in alignment:
            assert alignment[misaligned].decision is Decision.no
            assert all(c.recipe_id != misaligned for c in snapshot.cases)

    recipes = {r.id: r for r in snapshot.recipes}
    by_code = [c for c in snapshot.cases if recipes[c.recipe_id].transform is not None]
    by_model = [c for c in snapshot.cases if recipes[c.recipe_id].transform is None]
    # The case agent was asked only for the recipes without a transform.
    assert len([c for c in calls if c.task == "cases"]) == len(by_model)
    for case in by_code:
        transform = recipes[case.recipe_id].transform
        assert case.notes == f"written by code: transform {transform}" or case.error
        if case.error is None:
            data = TransformInput(
                text=case.example["summary"],
                example_index=case.example_index,
                examples=tuple(snapshot.examples),
                scored_field="summary",
            )
            expected = apply_transform(transform, data)
            assert all(
                text == (data.text if role == "original" else expected)
                for role, text in case.variants.items()
            )

    report = sane.report(path)
    assert report.suite.generator == f"fixed:{name}"
    assert report.validity.candidate_recipes == len(snapshot.recipes)
    assert report.warnings == []


def test_code_transform_failures_leave_cases_unrealised(
    workdir: Path, settings: LLMSettings
) -> None:
    """The tiny examples' summaries are single sentences: sentence deletion cannot apply."""
    path = _generate(workdir, settings, "fixed:scoring-rules", "suite.db")
    store = SuiteStore(path)
    cases = store.cases("rec-sentence-deletion")
    realization = store.decisions(Question.realization)
    errors = [e for e in store.errors() if e["subject"].startswith("rec-sentence-deletion/")]
    store.close()
    assert cases and all("at least two sentences" in (c.error or "") for c in cases)
    assert not any(c.id in realization for c in cases)  # nothing to vote on
    assert len(errors) == len(cases)


def test_fixed_suite_executes_like_a_derived_one(workdir: Path, settings: LLMSettings) -> None:
    path = _generate(workdir, settings, "fixed:jrh", "suite.db")
    records = sane.execute(
        path, llm=settings, timeout_s=5, targets=["careful", "lazy"], trust_suite_code=True
    )
    by_recipe: dict[str, set[Verdict]] = {}
    for record in records:
        by_recipe.setdefault(record.recipe_id, set()).add(record.verdict)
    # careful scores the scripted "UNSUPPORTED" variants 2 and the originals 5: the
    # invariance recipes the model wrote (paraphrase, verbosity) fault; code-written
    # format variants and the repeat-stability case pass.
    careful = {r.recipe_id: r.verdict for r in records if r.target == "careful"}
    assert careful["rec-blank-lines"] is Verdict.passed
    assert careful["rec-repeat-stability"] is Verdict.passed
    assert careful["rec-paraphrase"] is Verdict.fault
    report = sane.report(path)
    assert report.targets["careful"].fault_detecting_families == 3  # paraphrase, long, short
    assert report.targets["lazy"].fault_detecting_families == 0


def test_unknown_generator_is_refused_before_any_work(workdir: Path, settings: LLMSettings) -> None:
    with pytest.raises(sane.errors.InputError, match="--generator"):
        _generate(workdir, settings, "fixed:nope", "suite.db")
    assert not (workdir / "suite.db").exists()
