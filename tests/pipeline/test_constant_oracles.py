"""A panel that always says yes, or always no, fails the planted controls; a sound one passes."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from tiny_suite import generate_tiny

import sane
from sane.llm import LLMSettings
from sane.records import Question
from sane.suites.store import SuiteStore
from sane.validators.families import aligned_recipe_ids

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _constant_panel_script(workdir: Path, answer: str) -> Path:
    """tiny_script's agent (capabilities, recipes, cases) with every vote answered `answer`."""
    script = yaml.safe_load((FIXTURES / "tiny_script.yaml").read_text())
    agent = [r for r in script["rules"] if not str(r["task"]).startswith("vote:")]
    votes = [
        {"task": f"vote:{q}", "response": {"decision": answer, "rationale": "always"}}
        for q in ("alignment", "realization", "applicability")
    ]
    path = workdir / f"always_{answer}.yaml"
    path.write_text(yaml.safe_dump({"rules": agent + votes}))
    return path


def _generate(workdir: Path, script: Path, panel: str) -> Path:
    suite = workdir / f"{script.stem}-{panel}.db"
    settings = LLMSettings(cache_path=workdir / "cache.db", script_path=script, backoff_s=0)
    generate_tiny(workdir, settings, suite=suite, panel=panel)
    return suite


def _controls(workdir: Path, script: Path, panel: str = "contrastive"):
    return sane.report(_generate(workdir, script, panel)).validity


@pytest.mark.parametrize("panel", ["contrastive", "plain"])
def test_an_always_yes_panel_fails_by_accepting_known_wrong_items(workdir: Path, panel: str):
    validity = _controls(workdir, _constant_panel_script(workdir, "yes"), panel)
    controls = validity.controls
    assert controls is not None and controls.failed
    assert controls.false_accept.rate == 1.0 and controls.false_reject.wrong == 0
    assert "FAILED" in controls.summary and "known-wrong" in controls.summary
    if panel == "contrastive":  # no directional recipe survives its accepted mirror
        assert validity.aligned_recipes == 2  # only the two invariant recipes (no mirror)


def test_an_always_no_panel_fails_by_rejecting_known_right_items(workdir: Path):
    validity = _controls(workdir, _constant_panel_script(workdir, "no"))
    controls = validity.controls
    assert validity.aligned_recipes == 0
    assert controls is not None and controls.failed
    assert controls.false_reject.items >= 2 and controls.false_reject.rate == 1.0
    assert controls.false_accept.wrong == 0
    assert "known-right" in controls.summary


def test_the_sound_scripted_panel_passes_its_controls(workdir: Path):
    validity = _controls(workdir, workdir / "tiny_script.yaml")
    controls = validity.controls
    assert controls is not None and not controls.failed
    assert controls.false_accept.items >= 6 and controls.false_accept.wrong == 0
    assert controls.false_reject.items >= 2 and controls.false_reject.wrong == 0


def _blind_script(workdir: Path, direction: str) -> Path:
    """tiny_script's agent and case votes, with every direction question answered `direction`."""
    script = yaml.safe_load((FIXTURES / "tiny_script.yaml").read_text())
    rules = [{"task": "vote:direction", "response": {"answer": direction, "rationale": "always"}}]
    path = workdir / f"blind_{direction}.yaml"
    path.write_text(yaml.safe_dump({"rules": rules + script["rules"]}))
    return path


@pytest.mark.parametrize(
    ("direction", "aligned"),
    [("lower", {"rec-1-1"}), ("higher", {"rec-1-2"}), ("same", {"rec-2-1", "rec-2-2"})],
)
def test_a_blind_panel_with_a_constant_answer_accepts_one_direction_only(
    workdir: Path, direction: str, aligned: set[str]
):
    """rec-1-1 claims a decrease and rec-1-2 an increase for the same edit; rec-2-* invariance.
    A constant direction fits one of them at most, and never both a recipe and its mirror."""
    suite = _generate(workdir, _blind_script(workdir, direction), "blind")
    store = SuiteStore(suite)
    try:
        decisions = store.decisions(Question.alignment)
        assert aligned_recipe_ids(store.recipes(), decisions, store.config()) == aligned
        direction_calls = [c for c in store.calls() if c.task == "vote:direction"]
        mirror_votes = [
            v for d in decisions.values() if d.subject_id.startswith("control:") for v in d.votes
        ]
        applicability = store.decisions(Question.applicability)
    finally:
        store.close()
    assert all(f'"answer":"{direction}"' in v.raw for v in mirror_votes)
    # the mirrors repeat their recipe's prompt: served from the cache, never asked again
    fresh = [c for c in direction_calls if not c.cached]
    assert len(fresh) == len(direction_calls) - len(mirror_votes) > 0
    # a case's applicability is the same blind question on its own texts: the constant
    # direction fits the aligned recipes' relation, so their cases are applicable
    assert applicability and all(d.decision.value == "yes" for d in applicability.values())
    assert all(f'"answer":"{direction}"' in v.raw for d in applicability.values() for v in d.votes)
