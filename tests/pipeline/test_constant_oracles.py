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


def _blind_suite(workdir: Path, script: Path):
    """The tiny suite under a blind panel: (aligned recipe ids, alignment decisions, direction
    calls, applicability decisions)."""
    store = SuiteStore(_generate(workdir, script, "blind"))
    try:
        decisions = store.decisions(Question.alignment)
        aligned = aligned_recipe_ids(store.recipes(), decisions, store.config())
        calls = [c for c in store.calls() if c.task == "vote:direction"]
        return aligned, decisions, calls, store.decisions(Question.applicability)
    finally:
        store.close()


@pytest.mark.parametrize("direction", ["lower", "higher"])
def test_a_blind_panel_with_a_constant_direction_decides_no_direction(
    workdir: Path, direction: str
):
    """rec-1-1 claims a decrease and rec-1-2 an increase for the same edit; rec-2-* invariance.
    Every direction vote is asked again with the texts' roles exchanged: a constant answer
    contradicts itself there, so it decides no direction (it used to align every recipe that
    claims its direction) and fits no invariance."""
    aligned, decisions, calls, applicability = _blind_suite(
        workdir, _blind_script(workdir, direction)
    )
    assert aligned == set() and not applicability
    directional = [decisions[r] for r in ("rec-1-1", "rec-1-2")]
    assert all(d.decision.value == "unresolved" for d in directional)
    assert all(
        "order-inconsistent" in v.rationale and v.error is None
        for d in directional
        for v in d.votes
    )
    assert decisions["rec-2-1"].decision.value == "no"
    controls = sane.report(workdir / f"blind_{direction}-blind.db").validity.controls
    assert controls is not None and controls.failed
    assert controls.order_inconsistent.rate == 1.0 and controls.order_inconsistent.items >= 6
    assert "changed with the order of the two texts" in controls.summary
    # two calls per vote, and the mirrors repeat their recipe's prompts from the cache
    mirror_votes = [
        v for d in decisions.values() if d.subject_id.startswith("control:") for v in d.votes
    ]
    own_votes = [
        v for d in decisions.values() if not d.subject_id.startswith("control:") for v in d.votes
    ]
    assert len(calls) == 2 * (len(mirror_votes) + len(own_votes))
    assert len([c for c in calls if not c.cached]) == 2 * len(own_votes)


def test_a_blind_panel_with_a_constant_same_passes_invariance_only(workdir: Path):
    """The known limit of the order check: "same" reads the same both ways round, so a
    constant "same" still accepts invariance claims (and only them)."""
    aligned, _, _, applicability = _blind_suite(workdir, _blind_script(workdir, "same"))
    assert aligned == {"rec-2-1", "rec-2-2"}
    assert applicability and all(d.decision.value == "yes" for d in applicability.values())


def _order_aware_rules() -> list[dict]:
    """Direction answers of an oracle that reads the texts: the perturbed one is worse,
    whichever way the question is put."""
    return [
        {
            "task": "vote:direction",
            "contains": ', the "perturbed" text',
            "response": {"answer": "lower", "rationale": "the edit hurts"},
        },
        {
            "task": "vote:direction",
            "contains": ', the "original" text',
            "response": {"answer": "higher", "rationale": "the original is better"},
        },
    ]


def test_a_blind_panel_aligns_the_direction_an_order_aware_oracle_gives(workdir: Path):
    """Such an oracle, which also refuses the decoy instructions (the other capability's
    recipes), aligns the decrease, rejects the increase and the mirror, and validates the
    decrease's family: its cases are realized and applicable."""
    script = yaml.safe_load((FIXTURES / "tiny_script.yaml").read_text())
    decoys = [
        {
            "task": "vote:realization",
            "contains": ["Case id: rec-1-1/", f"Instruction: {instruction}"],
            "response": {"decision": "no", "rationale": "not this edit"},
        }
        for instruction in ("Replace single spaces", "Reorder the summary")
    ]
    path = workdir / "order_aware.yaml"
    path.write_text(yaml.safe_dump({"rules": _order_aware_rules() + decoys + script["rules"]}))
    aligned, decisions, _, applicability = _blind_suite(workdir, path)
    assert aligned == {"rec-1-1"}
    assert decisions["rec-1-2"].decision.value == "no"
    assert all(v.decision.value == "yes" for v in decisions["rec-1-1"].votes)
    cases = {d.subject_id: d.decision.value for d in applicability.values()}
    assert cases and all(s.startswith("rec-1-1/") and v == "yes" for s, v in cases.items())
    report = sane.report(workdir / "order_aware-blind.db")
    assert report.validity.validated_families == 1
    controls = report.validity.controls
    assert controls is not None and controls.order_inconsistent.wrong == 0
    assert controls.by_kind["decoy"] == (1, 0)  # the decoy control repeats a refused decoy


def test_a_blind_panel_realizes_nothing_for_an_oracle_that_accepts_any_instruction(
    workdir: Path,
):
    """The same oracle, saying yes to every realization question: each vote also asks about a
    decoy instruction, its yes there contradicts its yes to the recipe, and no model-written
    case is realized, so nothing is validated."""
    script = yaml.safe_load((FIXTURES / "tiny_script.yaml").read_text())
    agent = [r for r in script["rules"] if not str(r["task"]).startswith("vote:")]
    yes = {"task": "vote:realization", "response": {"decision": "yes", "rationale": "always"}}
    path = workdir / "yes_realization.yaml"
    path.write_text(yaml.safe_dump({"rules": [*_order_aware_rules(), yes, *agent]}))
    aligned, _, _, applicability = _blind_suite(workdir, path)
    assert aligned == {"rec-1-1"} and not applicability
    store = SuiteStore(workdir / "yes_realization-blind.db")
    try:
        realization = store.decisions(Question.realization)
    finally:
        store.close()
    own = [d for s, d in realization.items() if s.startswith("rec-1-1/")]
    assert own and all(d.decision.value == "unresolved" for d in own)
    assert all("decoy accepted" in v.rationale for d in own for v in d.votes)
    report = sane.report(workdir / "yes_realization-blind.db")
    assert report.validity.validated_families == 0
