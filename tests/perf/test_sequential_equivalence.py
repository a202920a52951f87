"""Sequential decisions change only the number of calls, never the suite.

A scripted run with many families (some doomed, some passing, split and
unparseable votes, failed case generations) is generated twice, once
exhaustively and once sequentially, each with its own cache; the validated
families, their cases, the decisions on those cases and the execution verdicts
must be identical, with fewer uncached calls in sequential mode.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
import yaml

import sane
from sane.errors import InputError
from sane.llm import LLMSettings
from sane.records import Decision, SuiteSnapshot
from sane.suites.store import SuiteStore

N_CASES = 8
CAPABILITIES = 3
PATTERNS = [  # three votes by sample index; None = an unparseable answer
    ("yes", "yes", "yes"),
    ("yes", "yes", "yes"),
    ("yes", "yes", "yes"),
    ("no", "no", "no"),
    ("yes", "no", "yes"),
    ("no", "yes", "yes"),
    ("yes", "no", "no"),
    ("no", "no", "yes"),
    ("yes", None, "yes"),
    (None, None, "yes"),
    ("yes", None, "no"),
]


def _vote(decision: str | None) -> Any:
    return "no idea" if decision is None else {"decision": decision, "rationale": "scripted"}


def _script(seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    rules: list[dict[str, Any]] = [
        {
            "task": "capabilities",
            "response": {
                "capabilities": [
                    {"name": f"Skill {c}", "description": "d", "requirement": "monotonicity"}
                    for c in range(1, CAPABILITIES + 1)
                ]
            },
        }
    ]
    recipe = {
        "instruction": "Add an unsupported claim.",
        "variant_roles": ["original", "perturbed"],
        "relation": {"kind": "decrease", "original": "original", "perturbed": "perturbed"},
        "rationale": "r",
    }
    rules.append(
        {
            "task": "recipes",
            "response": {"recipes": [recipe | {"name": "a"}, recipe | {"name": "b"}]},
        }
    )
    rules.append(
        {"task": "vote:alignment", "contains": "Recipe id: rec-3-2", "response": _vote("no")}
    )
    rules.append({"task": "vote:alignment", "response": _vote("yes")})
    for c in range(1, CAPABILITIES + 1):
        for r in (1, 2):
            rid = f"rec-{c}-{r}"
            quality = rng.choice([0.95, 0.8, 0.5, 0.2])  # passing and doomed families
            for i in range(N_CASES):
                cid = f"{rid}/case-{i}"
                if rng.random() < 0.1:
                    rules.append(
                        {
                            "task": "cases",
                            "contains": [f"Recipe id: {rid}", f"Case number: {i}\n"],
                            "error": "provider exploded",
                        }
                    )
                marker = "UNSUPPORTED" if rng.random() < 0.7 else "plain"
                rules.append(
                    {
                        "task": "cases",
                        "contains": [f"Recipe id: {rid}", f"Case number: {i}\n"],
                        "response": {"variants": [{"role": "perturbed", "text": f"{marker} {i}"}]},
                    }
                )
                for question in ("realization", "applicability"):
                    good = rng.random() < quality
                    pattern = rng.choice(PATTERNS[:3] + PATTERNS[4:6] if good else PATTERNS[3:])
                    for sample, decision in enumerate(pattern):
                        rules.append(
                            {
                                "task": f"vote:{question}",
                                "contains": f"Case id: {cid}\n",
                                "sample": sample,
                                "response": _vote(decision),
                            }
                        )
    return {"rules": rules}


def _run(workdir: Path, name: str, script: Path, **mode: bool) -> tuple[SuiteSnapshot, int]:
    settings = LLMSettings(
        cache_path=workdir / f"{name}-cache.db", script_path=script, backoff_s=0.0
    )
    suite = workdir / f"{name}.db"
    sane.generate(
        workdir / "tiny_spec.yaml",
        suite=suite,
        model="scripted",
        votes=3,
        cases=N_CASES,
        max_capabilities=CAPABILITIES,
        recipes_per_capability=2,
        panel="plain",  # the scripted votes are hand-laid per recipe; mirrors are not the point
        llm=settings,
        **mode,
    )
    sane.execute(suite, llm=settings, timeout_s=5, trust_suite_code=True)
    store = SuiteStore(suite)
    try:
        snapshot = store.snapshot()
    finally:
        store.close()
    uncached = sum(not c.cached for c in snapshot.calls)
    return snapshot, uncached


def _suite_view(snapshot: SuiteSnapshot) -> dict[str, Any]:
    """What the suite claims: validated families, their cases, decisions and verdicts."""
    validated = {f.recipe_id for f in snapshot.families if f.validated}
    cases = {c.id: c for c in snapshot.cases if c.recipe_id in validated}

    def decisions(table: dict[str, Any]) -> dict[str, Decision]:
        return {k: v.decision for k, v in table.items() if k in cases}

    return {
        "validated": sorted(validated),
        "families": {
            f.recipe_id: (f.cases, f.realized, f.applicable, f.joint_valid)
            for f in snapshot.families
            if f.validated
        },
        "cases": {k: c.model_dump() for k, c in cases.items()},
        "realization": decisions(snapshot.realization),
        # applicability is asked sequentially only of realized cases (the others cannot be
        # joint-valid), so it is compared where it decides something
        "applicability": {
            k: v
            for k, v in decisions(snapshot.applicability).items()
            if snapshot.realization[k].decision is Decision.yes
        },
        "alignment": {k: v.decision for k, v in snapshot.alignment.items()},
        "verdicts": sorted(
            (e.target, e.case_id, e.verdict.value, str(e.scores)) for e in snapshot.executions
        ),
    }


@pytest.mark.parametrize("seed", [1, 2])
def test_sequential_and_exhaustive_build_the_same_suite(workdir: Path, seed: int) -> None:
    script = workdir / "many.yaml"
    script.write_text(yaml.safe_dump(_script(seed)), encoding="utf-8")
    exhaustive, exhaustive_calls = _run(workdir, "exhaustive", script, exhaustive=True)
    sequential, sequential_calls = _run(workdir, "sequential", script)

    assert _suite_view(sequential) == _suite_view(exhaustive)
    assert any(f.validated for f in exhaustive.families)
    assert sequential_calls < exhaustive_calls
    # every decision stored in sequential mode keeps every vote it asked, numbered 0..m-1
    for table in (sequential.realization, sequential.applicability, sequential.alignment):
        for decision in table.values():
            assert [v.sample_index for v in decision.votes] == list(range(len(decision.votes)))
            assert 2 <= len(decision.votes) <= 3


def test_sequential_votes_are_the_exhaustive_calls(workdir: Path) -> None:
    """Vote i is the same cache entry in both modes: a sequential run on the exhaustive run's
    cache makes no new call at all."""
    script = workdir / "many.yaml"
    script.write_text(yaml.safe_dump(_script(4)), encoding="utf-8")
    settings = LLMSettings(cache_path=workdir / "shared.db", script_path=script, backoff_s=0.0)
    common = {"model": "scripted", "cases": N_CASES, "max_capabilities": CAPABILITIES}
    sane.generate(
        workdir / "tiny_spec.yaml", suite=workdir / "a.db", exhaustive=True, llm=settings, **common
    )
    sane.generate(workdir / "tiny_spec.yaml", suite=workdir / "b.db", llm=settings, **common)
    store = SuiteStore(workdir / "b.db")
    calls = store.calls()
    store.close()
    assert calls and all(c.cached for c in calls if c.error is None)


def test_doomed_families_are_cut_short_and_reported(workdir: Path, settings: LLMSettings) -> None:
    """tiny_script: rec-2-1 fails cases 1 and 2 (n=4, tau=3), so case 3 is never generated."""
    snapshot = sane.generate(
        workdir / "tiny_spec.yaml",
        suite=workdir / "suite.db",
        model="scripted",
        cases=4,
        max_capabilities=2,
        llm=settings,
    )
    families = {f.recipe_id: f for f in snapshot.families}
    assert families["rec-2-1"].cases == 3
    assert families["rec-2-1"].skipped == 1
    assert families["rec-2-1"].stopped == "could_not_reach_tau"
    assert families["rec-1-1"].cases == 4 and families["rec-1-1"].stopped is None
    assert "rec-2-1/case-3" not in {c.id for c in snapshot.cases}
    # a unanimous alignment needs two votes, a split one three
    assert len(snapshot.alignment["rec-1-1"].votes) == 2
    assert len(snapshot.alignment["rec-2-2"].votes) == 3
    # an unrealized case is not asked about applicability
    assert "rec-2-1/case-1" not in snapshot.applicability
    validity = sane.report(workdir / "suite.db").model_dump(mode="json")["validity"]
    assert (
        validity["joint_valid_cases"]
        <= validity["applicable_cases"]
        <= validity["realized_cases"]
        <= validity["cases"]
    )


def test_budget_mode_stops_at_tau(workdir: Path, settings: LLMSettings) -> None:
    """With stop_at_tau, rec-1-1 (cases 0, 1 joint-valid; 2 fails; 3 joint-valid) stops at
    tau=2 after two cases and says so."""
    snapshot = sane.generate(
        workdir / "tiny_spec.yaml",
        suite=workdir / "suite.db",
        model="scripted",
        cases=4,
        tau=2,
        max_capabilities=2,
        stop_at_tau=True,
        llm=settings,
    )
    family = {f.recipe_id: f for f in snapshot.families}["rec-1-1"]
    assert family.validated and family.joint_valid == 2
    assert family.cases == 2 and family.skipped == 2 and family.stopped == "reached_tau"


def test_budget_mode_refuses_exhaustive(workdir: Path, settings: LLMSettings) -> None:
    with pytest.raises(InputError, match="stop-at-tau"):
        sane.generate(
            workdir / "tiny_spec.yaml",
            suite=workdir / "suite.db",
            model="scripted",
            exhaustive=True,
            stop_at_tau=True,
            llm=settings,
        )
