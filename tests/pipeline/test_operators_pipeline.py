"""Catalogue operators: a recipe the agent builds on a code edit is written and realized by code."""

from __future__ import annotations

from pathlib import Path

import yaml

import sane
from sane.generators.transforms import OPERATORS, TransformInput, apply_transform
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
