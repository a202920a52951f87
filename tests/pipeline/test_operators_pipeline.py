"""Catalogue operators: a recipe the agent builds on a code edit is written and realized by code."""

from __future__ import annotations

from pathlib import Path

import yaml

import sane
from sane.edits import OPERATORS, TransformInput, apply_transform
from sane.llm import LLMSettings
from sane.records import Question
from sane.suites.store import SuiteStore

SCRIPT = {
    "rules": [
        {
            "task": "capabilities",
            "response": {
                "capabilities": [
                    {"name": "Layout", "description": "Ignores layout", "requirement": "robustness"}
                ]
            },
        },
        {
            "task": "recipes",
            "response": {
                "recipes": [
                    {  # the agent's own words and roles are replaced by the operator's
                        "operator": "lowercase",
                        "name": "lower case",
                        "instruction": "Make it quieter.",
                        "variant_roles": ["before", "after"],
                        "relation": {
                            "kind": "invariant",
                            "original": "before",
                            "perturbed": "after",
                        },
                    },
                    {  # free-form: written by the case agent and realized by the panel
                        "operator": None,
                        "name": "add a claim",
                        "instruction": "Add one claim the source does not support.",
                        "variant_roles": ["original", "perturbed"],
                        "relation": {"kind": "decrease"},
                    },
                ]
            },
        },
        {"task": "cases", "response": {"variants": [{"role": "perturbed", "text": "Made up."}]}},
        {"task": "vote:alignment", "response": {"decision": "yes", "rationale": "ok"}},
        {"task": "vote:realization", "response": {"decision": "yes", "rationale": "ok"}},
        {"task": "vote:applicability", "response": {"decision": "yes", "rationale": "ok"}},
    ]
}


def test_an_operator_recipe_is_written_and_realized_by_code(workdir: Path) -> None:
    script = workdir / "operators.yaml"
    script.write_text(yaml.safe_dump(SCRIPT))
    suite = workdir / "operators.db"
    sane.generate(
        workdir / "tiny_spec.yaml",
        suite=suite,
        model="scripted",
        votes=3,
        cases=3,
        max_capabilities=1,
        recipes_per_capability=2,
        panel="plain",
        llm=LLMSettings(cache_path=workdir / "cache.db", script_path=script, backoff_s=0),
    )
    store = SuiteStore(suite)
    try:
        coded, free = store.recipes()
        assert coded.transform == "lowercase"
        assert coded.instruction == OPERATORS["lowercase"]
        assert coded.variant_roles == ["original", "perturbed"]
        assert (coded.relation.original, coded.relation.perturbed) == ("original", "perturbed")
        assert free.transform is None and free.instruction.startswith("Add one claim")
        realization = store.decisions(Question.realization)
        assert len(store.cases(coded.id)) == 3
        for case in store.cases(coded.id):
            expected = apply_transform("lowercase", TransformInput(text=case.variants["original"]))
            assert case.variants["perturbed"] == expected
            assert realization[case.id].votes == []  # decided by code: no panel call
        assert all(realization[c.id].votes for c in store.cases(free.id) if c.id in realization)
    finally:
        store.close()


def test_an_operator_case_takes_the_next_example_it_can_change() -> None:
    from sane.agents.cases import _transformed_case
    from sane.records import PairRelation, Recipe, Requirement, ScorerSpec

    spec = ScorerSpec(
        name="s", criterion="c", fields={"summary": "text"}, scored_field="summary",
        output={"min": 0, "max": 1},
    )  # fmt: skip
    examples = [{"summary": t} for t in ("No digits.", "Cost 5 euros.", "None here.", "Year 2020.")]
    recipe = Recipe(
        id="rec-1-1", capability_id="cap-1", requirement=Requirement.monotonicity, name="n",
        instruction=OPERATORS["change_number"], variant_roles=["original", "perturbed"],
        relation=PairRelation(kind="decrease"), rationale="", transform="change_number",
    )  # fmt: skip
    cases = [_transformed_case(spec, recipe, f"c{i}", i, 2, examples) for i in range(3)]
    assert [c.example_index for c in cases[:2]] == [3, 1]  # from offset 2: skip 2, take 3, 1
    assert cases[0].variants["perturbed"] == "Year 2027." and cases[1].error is None
    assert cases[2].error and "2 of 4 examples fit" in cases[2].error  # never a repeated case


def test_an_operator_behind_a_label_is_recognised() -> None:
    from sane.agents._drafts import RecipeDraft
    from sane.agents.recipes import _operator

    draft = RecipeDraft(
        name="Extra spaces", instruction="Extra spaces: Double every space between two words.",
        variant_roles=["original", "perturbed"], relation={"kind": "invariant"},
    )  # fmt: skip
    assert _operator(draft) == "extra_spaces"
