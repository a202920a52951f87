"""Target kinds as objects (sane.target_kind), and a suite of the previous release.

`tests/fixtures/old_suite/` was built by the code at b1349a6, the last release before target
kinds had configs of their own (`make_old_suite.py` there rebuilds it with that code): the tiny
spec plus a target of every built-in kind with the optional keys, generated and executed, and
the report that code built (`report.json`).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import ValidationError

import sane
from sane.api import build_report
from sane.llm import LLMSettings
from sane.records import ScorerSpec, SuiteTarget
from sane.scorers.python_fn import PythonConfig
from sane.suites.store import SuiteStore
from sane.target_kind import TARGET_KINDS, definition_sha256, kind_of, target_config

OLD = Path(__file__).resolve().parents[1] / "fixtures" / "old_suite"

# The definition hashes the previous release stored: they identify the definitions every
# stored result was measured under, so no later code may compute another for the same target.
PINNED = {
    "careful": "6a79d35e3b42eb97bb4809f83f47c005bc15ac66bf4ad6812983466bc4e08e9a",
    "lazy": "1535eba17aa6d44c32875e4ea86fa7da23ec82207ca4a7c57d2f3e856ae4267c",
    "broken": "a7c72589a7e322e499619ac40b31d93b38ac30c963d80c96270f698d1a468152",
    "steady": "0eb4043c07cbe825ba42186000f28636387742e19ace488456c20a88c44b80c9",
    "rouge": "c126ec4ad23b14ff0d8b6827b847a4fa3a2c00a84c59e81d7fd864d78d492be5",
    "judge": "199155fe701e34e19c3f5f4dcc2d68601ee63473ab1e7a4cd2d32a535979bbf3",
}


@pytest.fixture
def old_suite(tmp_path: Path) -> Path:
    for path in OLD.iterdir():
        shutil.copy(path, tmp_path / path.name)
    return tmp_path / "suite.db"


def _targets(suite: Path) -> list[SuiteTarget]:
    store = SuiteStore(suite, readonly=True)
    try:
        return store.targets()
    finally:
        store.close()


def _hash(target: SuiteTarget) -> str:
    return definition_sha256(target.config, target.rubric_sha256, target.code_sha256)


def test_a_stored_suites_hashes_are_pinned_and_recomputed_from_what_it_holds(
    old_suite: Path,
) -> None:
    targets = _targets(old_suite)
    assert {t.config.name: t.definition_sha256 for t in targets} == PINNED
    assert {t.config.name: _hash(t) for t in targets} == PINNED
    assert {t.config.name: t.config.kind for t in targets} == {
        "careful": "python", "lazy": "python", "broken": "python", "steady": "python",
        "rouge": "builtin", "judge": "llm_judge",
    }  # fmt: skip


def test_freezing_the_old_spec_again_gives_the_stored_hashes(old_suite: Path) -> None:
    from sane.inputs import load_spec
    from sane.scorers.suite_targets import freeze_targets

    spec, path = load_spec(old_suite.parent / "tiny_spec.yaml")
    frozen = freeze_targets(spec, path.parent, str(path))
    assert {t.config.name: t.definition_sha256 for t in frozen} == PINNED


def test_an_optional_field_added_later_changes_no_hash(old_suite: Path) -> None:
    """A new optional key is hashed only where a spec gives it other than its default."""

    class Later(PythonConfig):
        retries: int = 0

    for target in _targets(old_suite):
        if target.config.kind != "python":
            continue
        later = Later.model_validate(target.config.model_dump())
        assert definition_sha256(later, None, target.code_sha256) == target.definition_sha256
        changed = later.model_copy(update={"retries": 2})
        assert definition_sha256(changed, None, target.code_sha256) != target.definition_sha256


def test_the_old_suite_reports_the_same(old_suite: Path) -> None:
    """Every key the previous release's report had holds the same value now (a key added
    since may be new)."""
    store = SuiteStore(old_suite, readonly=True)
    try:
        report = build_report(store.snapshot()).model_dump(mode="json")
    finally:
        store.close()
    old = json.loads((OLD / "report.json").read_text())
    assert _differences(old, report) == []


def _differences(old: Any, new: Any, path: str = "") -> list[str]:
    if isinstance(old, dict) and isinstance(new, dict):
        return [
            d
            for key in old
            for d in (
                _differences(old[key], new[key], f"{path}.{key}")
                if key in new
                else [f"{path}.{key}: gone"]
            )
        ]
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [
            d for i, (a, b) in enumerate(zip(old, new)) for d in _differences(a, b, f"{path}[{i}]")
        ]
    return [] if old == new else [f"{path}: {old!r} -> {new!r}"]


def test_executing_the_old_suite_with_its_spec_measures_nothing_again(old_suite: Path) -> None:
    """The same definitions: every stored result stands, nothing is called or re-run. (Under
    the tolerance bar it was executed with, an absolute floor of 0.05 and no spread share: a
    run under another bar checks its cases again, tests/pipeline/test_end_to_end.py.)"""
    folder = old_suite.parent
    before = {(e.target, e.case_id, e.definition_sha256) for e in _executions(old_suite)}
    settings = LLMSettings(
        cache_path=folder / "cache.db", script_path=folder / "tiny_script.yaml", max_calls=0
    )
    records = sane.execute(
        old_suite, spec=folder / "tiny_spec.yaml", llm=settings, timeout_s=5,
        tolerance_floor=0.05, tolerance_spread=0,
    )  # fmt: skip
    assert records.new == []  # the user's targets: the planted null scorers run the first time
    after = {(e.target, e.case_id, e.definition_sha256) for e in _executions(old_suite)}
    assert {row for row in after if not row[0].startswith("null-")} == before


def _executions(suite: Path) -> list[Any]:
    store = SuiteStore(suite, readonly=True)
    try:
        return store.snapshot().executions
    finally:
        store.close()


# ---------------------------------------------------------------------- the configs


def test_each_kind_parses_its_own_keys_and_refuses_anothers() -> None:
    judge = target_config(name="j", kind="llm_judge", model="m", reply="json")
    assert type(judge) is TARGET_KINDS["llm_judge"].config and kind_of(judge).judge
    assert kind_of(target_config(name="p", kind="python", ref="m:f")).runs_code
    assert not kind_of(judge).runs_code
    with pytest.raises(ValidationError, match="ref"):
        target_config(name="j", kind="llm_judge", model="m", ref="m:f")
    with pytest.raises(ValidationError, match="unknown target kind 'telepathy'"):
        target_config(name="x", kind="telepathy")


def test_a_spec_dumps_and_reloads_each_targets_own_keys() -> None:
    spec = ScorerSpec(
        name="s", criterion="c", fields={"text": "t"}, scored_field="text",
        output={"min": 0, "max": 1},
        targets=[{"name": "p", "kind": "python", "ref": "m:f", "deterministic": True},
                 {"name": "r", "kind": "builtin", "metric": "rouge_l", "reference_field": "text"}],
    )  # fmt: skip
    dumped = spec.model_dump(mode="json")
    assert dumped["targets"][0]["ref"] == "m:f" and dumped["targets"][1]["metric"] == "rouge_l"
    assert ScorerSpec.model_validate(dumped) == spec


def test_the_flat_records_unused_keys_are_dropped_only_at_their_unset_value() -> None:
    """A stored suite holds every flat key (null where unused); a spec that gives a key its
    kind does not read is refused by name, not stored and ignored."""
    stored = {"name": "p", "kind": "python", "ref": "m:f", "model": None, "prompt": None,
              "metric": None, "temperature": None, "reply": "text", "reference_field": None}  # fmt: skip
    assert target_config(**stored).model_dump(exclude_none=True) == {
        "name": "p", "kind": "python", "ref": "m:f", "deterministic": False,
    }  # fmt: skip
    with pytest.raises(ValidationError, match="temperature"):
        target_config(**(stored | {"temperature": 0.5}))


@pytest.mark.parametrize("kind", ["builtin", "python", "llm_judge"])
def test_every_built_in_kind_says_what_its_settings_are(kind: str) -> None:
    settings = TARGET_KINDS[kind].config.SETTINGS
    assert "config_group" in settings and "name" not in settings and "kind" not in settings


def test_the_trust_rule_asks_the_kind(old_suite: Path) -> None:
    from sane.scorers.suite_targets import CodeTrust, runnable

    targets = _targets(old_suite)
    run, not_run = runnable(targets, CodeTrust(), str(old_suite))
    assert sorted(not_run) == ["broken", "careful", "lazy", "steady"]
    assert sorted(t.config.name for t in run) == ["judge", "rouge"]
    declared = CodeTrust(declared=frozenset({"careful"}))
    assert "careful" in {t.config.name for t in runnable(targets, declared, "s")[0]}


def test_a_kind_literal_is_its_name() -> None:
    for name, kind in TARGET_KINDS.items():
        assert kind.config.model_fields["kind"].annotation == Literal[name]


def test_a_suite_whose_target_holds_a_key_its_kind_never_read_still_opens(
    old_suite: Path,
) -> None:
    """An earlier release stored what a spec gave (a `temperature` on a python target, which
    it ignored); that suite opens, its stored hash kept, while a spec with it is refused."""
    import sqlite3

    with sqlite3.connect(old_suite) as db:
        (text,) = db.execute("select json from targets where name = 'careful'").fetchone()
        stored = json.loads(text)
        stored["config"]["temperature"] = 0.5
        db.execute("update targets set json = ? where name = 'careful'", [json.dumps(stored)])
    careful = next(t for t in _targets(old_suite) if t.config.name == "careful")
    assert careful.definition_sha256 == PINNED["careful"]
    assert "temperature" not in careful.config.model_dump()
    with pytest.raises(ValidationError, match="temperature"):
        target_config(**stored["config"])
