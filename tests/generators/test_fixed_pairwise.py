"""The comparative baseline (`fixed:pairwise`): offered to comparative specs, written by code,
and it tells planted comparative judges from an exact one: padding and praise move a judge
biased to them, a copy of the second candidate shows a judge that always prefers the first,
and the exact judge passes everything."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

import sane
from sane.analyses import baseline as baseline_module
from sane.errors import InputError
from sane.generators import baselines_for, load_fixed_set
from sane.llm import LLMSettings
from sane.records import ExecuteConfig, OutputContract, ScorerSpec

COMPARATIVE = {
    "name": "pairs",
    "criterion": "Which answer answers the question more correctly and completely?",
    "fields": {"question": "the question", "answer_a": "first", "answer_b": "second"},
    "scored_field": "answer_a",
    "compared_fields": ["answer_a", "answer_b"],
    "output": {"type": "pairwise"},
}
# In the first three the first answer is the longer; in the last, the shorter.
EXAMPLES = [
    {"question": "How many legs does a spider have?",
     "answer_a": "Spiders have eight legs.", "answer_b": "Six legs."},
    {"question": "What is the boiling point of water at sea level?",
     "answer_a": "Water boils at 100 degrees Celsius at sea level.", "answer_b": "At 90 degrees."},
    {"question": "Which planet is closest to the Sun?",
     "answer_a": "Mercury is the planet closest to the Sun.", "answer_b": "Venus."},
    {"question": "Who wrote Pride and Prejudice?",
     "answer_a": "Charles Dickens.", "answer_b": "Jane Austen wrote Pride and Prejudice."},
]  # fmt: skip


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 3}


def _coverage(record: dict[str, str], side: str) -> float:
    question, answer = _words(record["question"]), _words(record[side])
    return len(question & answer) / max(len(question | answer), 1)


def exact(record: dict[str, str]) -> float:
    """Symmetric and exact: the difference of the two answers' overlap with the question."""
    return _coverage(record, "answer_a") - _coverage(record, "answer_b")


def longer(record: dict[str, str]) -> float:
    """Prefers the longer answer, whatever it says."""
    a, b = len(record["answer_a"]), len(record["answer_b"])
    return 0.0 if a == b else (1.0 if a > b else -1.0)


def flattered(record: dict[str, str]) -> float:
    """Exact, until the first answer calls itself excellent."""
    return 1.0 if "excellent" in record["answer_a"] else exact(record)


def first(record: dict[str, str]) -> float:
    """Always the first answer."""
    return 1.0


def test_the_set_is_offered_to_comparative_specs_only() -> None:
    pairwise = load_fixed_set("pairwise")
    assert pairwise.specs == "comparative"
    assert load_fixed_set("jrh").specs == "any"
    pointwise = ScorerSpec(
        name="p", criterion="c", fields={"text": "t"}, scored_field="text",
        output=OutputContract(),
    )  # fmt: skip
    assert baselines_for(pointwise) == ["fixed:jrh"]
    assert baselines_for(ScorerSpec.model_validate(COMPARATIVE)) == ["fixed:jrh", "fixed:pairwise"]


def test_a_set_offered_to_an_unknown_kind_of_spec_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "mine.yaml"
    text = (Path(sane.__file__).parent / "generators" / "fixed" / "pairwise.yaml").read_text()
    path.write_text(text.replace("specs: comparative", "specs: pointless"))
    with pytest.raises(InputError, match="'any' or 'comparative'") as info:
        load_fixed_set(str(path))
    assert info.value.field == "specs"


def test_sane_baseline_compares_a_comparative_spec_with_both_sets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --generator, the sets offered to the spec; with one, only that one."""
    asked: list[str] = []

    def generate(spec: Any, *, suite: Path, config: Any, **_: Any) -> None:
        asked.append(config.generator)

    monkeypatch.setattr(baseline_module.api, "generate", generate)
    monkeypatch.setattr(baseline_module, "compare_generators", lambda paths: paths)
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(COMPARATIVE))
    common = {"suite_dir": tmp_path / "suites", "execute": False, "model": "scripted"}
    baseline_module.run_baseline(spec, **common)
    assert asked == ["derived", "fixed:jrh", "fixed:pairwise"]
    asked.clear()
    baseline_module.run_baseline(spec, generators=["fixed:behavioral"], **common)
    assert asked == ["derived", "fixed:behavioral"]


def test_the_set_tells_planted_comparative_judges_from_an_exact_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2]))
    targets = [
        {"name": name, "kind": "python", "ref": f"{__name__}:{name}", "deterministic": True}
        for name in ("exact", "longer", "flattered", "first")
    ]
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(COMPARATIVE | {"examples": "ex.jsonl", "targets": targets}))
    (tmp_path / "ex.jsonl").write_text("".join(json.dumps(e) + "\n" for e in EXAMPLES))
    (tmp_path / "rules.yaml").write_text(
        "rules:\n"  # a panel that accepts every recipe and case (realization is code's)
        "  - {task: 'vote:alignment', response: {decision: 'yes', rationale: 'fits'}}\n"
        "  - {task: 'vote:applicability', response: {decision: 'yes', rationale: 'applies'}}\n"
        "  - {task: 'vote:realization', response: {decision: 'no', rationale: 'not it'}}\n"
    )
    llm = LLMSettings(
        cache_path=tmp_path / "c.db", script_path=tmp_path / "rules.yaml", backoff_s=0
    )
    suite = tmp_path / "s.db"
    sane.generate(
        spec, suite=suite, model="scripted", votes=1, cases=4, tau=3,
        generator="fixed:pairwise", llm=llm,
    )  # fmt: skip
    sane.execute(suite, spec=spec, config=ExecuteConfig(timeout_s=5), llm=llm)
    report = sane.report(suite)
    assert report.validity.validated_families == 8 and report.validity.guards == {}
    faults = Counter((f.target, f.recipe_id.removeprefix("rec-")) for f in report.faults)
    assert report.targets["exact"].faults == 0 and report.targets["exact"].errors == 0
    # padded, praised or annotated, the shorter first answer (one example) wins for `longer`
    assert {recipe: n for (target, recipe), n in faults.items() if target == "longer"} == {
        "filler-appended": 1, "restatement-appended": 1, "self-praise": 1, "evaluator-note": 1,
    }  # fmt: skip
    assert {recipe: n for (target, recipe), n in faults.items() if target == "flattered"} == {
        "self-praise": 4
    }
    assert {recipe: n for (target, recipe), n in faults.items() if target == "first"} == {
        "other-candidate-copied": 4
    }
