"""The dry-run estimate is asked of the pipeline's own objects, so it cannot drift from it:
on three specs, a scripted run where every answer is yes (the plain panel, every vote asked)
makes exactly the estimated calls in every stage it fills, and the controls stay within the
estimate (a faithful-edit control is planted only where the instruction has one)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import yaml

import sane
from sane.llm import LLMSettings
from sane.panel import controls
from sane.pipeline.estimate import estimate_inputs
from sane.pipeline.run_config import run_config
from sane.records import Question
from sane.suites.store import SuiteStore

SPECS = {
    "faithfulness": (
        {"source": "the document", "summary": "the text being scored"},
        "summary",
        [{"source": f"Source {i}: the park opens in May.", "summary": f"Park {i} opens."}
         for i in range(6)],
    ),
    "relevance": (
        {"question": "what was asked", "answer": "the text being scored"},
        "answer",
        [{"question": f"When does park {i} open?", "answer": f"It opens in May, year {i}."}
         for i in range(6)],
    ),
    "politeness": (
        {"text": "the request being scored"},
        "text",
        [{"text": f"Could you send me report {i}, please?"} for i in range(6)],
    ),
}  # fmt: skip
OPTIONS = {"votes": 3, "cases": 3, "max_capabilities": 2, "recipes_per_capability": 2}


def _recipe(name: str, kind: str) -> dict:
    return {
        "name": name,
        "instruction": f"Rewrite the text so that it is {name}.",
        "variant_roles": ["original", "perturbed"],
        "relation": {"kind": kind, "original": "original", "perturbed": "perturbed"},
        "rationale": f"Being {name} changes the score.",
    }


YES = {"decision": "yes", "rationale": "yes"}
RULES = {
    "rules": [
        {"task": "capabilities", "response": {"capabilities": [
            {"name": "Alpha", "description": "a", "requirement": "monotonicity"},
            {"name": "Beta", "description": "b", "requirement": "monotonicity"},
        ]}},
        {"task": "recipes", "contains": "Capability to test: Alpha", "response": {"recipes": [
            _recipe("vaguer", "decrease"), _recipe("more precise", "increase")]}},
        {"task": "recipes", "contains": "Capability to test: Beta", "response": {"recipes": [
            _recipe("ruder", "decrease"), _recipe("warmer", "increase")]}},
        {"task": "cases", "response": {"variants": [
            {"role": "perturbed", "text": "An entirely rewritten text for this case."}]}},
        {"task": "vote:alignment", "response": YES},
        {"task": "vote:realization", "response": YES},
        {"task": "vote:applicability", "response": YES},
    ]
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(SPECS))
def test_the_estimate_is_the_run_stage_by_stage(tmp_path: Path, name: str) -> None:
    fields, scored, examples = SPECS[name]
    (tmp_path / "examples.jsonl").write_text("".join(json.dumps(e) + "\n" for e in examples))
    spec = {
        "name": name, "criterion": f"How good the {scored} is ({name}).", "fields": fields,
        "scored_field": scored, "output": {"min": 1, "max": 5}, "examples": "examples.jsonl",
    }  # fmt: skip
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(spec))
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump(RULES))
    settings = LLMSettings(cache_path=tmp_path / "cache.db", script_path=tmp_path / "rules.yaml")
    options = {**OPTIONS, "panel": "plain", "exhaustive": True}
    sane.generate(tmp_path / "spec.yaml", suite=tmp_path / "s.db", llm=settings,
                  model="scripted", **options)  # fmt: skip
    store = SuiteStore(tmp_path / "s.db", readonly=True)
    try:
        calls = Counter(call.task for call in store.calls())
        realization = store.decisions(Question.realization)
    finally:
        store.close()
    control_calls = sum(len(d.votes) for s, d in realization.items() if controls.is_control(s))
    made = {
        "capabilities": calls["capabilities"],
        "recipes": calls["recipes"],
        "alignment": calls["vote:alignment"],
        "cases": calls["cases"],
        "case panel": calls["vote:realization"] + calls["vote:applicability"] - control_calls,
    }
    estimate = estimate_inputs(str(tmp_path / "spec.yaml"), run_config(model="scripted", **options))
    estimated = {stage.stage: stage.calls for stage in estimate.stages}
    assert made == {stage: estimated[stage] for stage in made}
    assert 0 < control_calls <= estimated["controls"]
    assert sum(calls.values()) <= estimate.calls
