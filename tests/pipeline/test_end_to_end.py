"""generate -> execute -> report on the scripted model, checked against hand-worked counts.

The expected numbers are derived in the comment at the top of
tests/fixtures/tiny_script.yaml (n=4 cases, tau=3, k=3 votes).
"""

from __future__ import annotations

from pathlib import Path

from tiny_suite import generate_tiny

import sane
from sane.llm import LLMSettings
from sane.records import Decision, Question
from sane.suites.store import SuiteStore


def _generate(workdir: Path, settings: LLMSettings) -> None:
    # the hand counts assume every case; tests/perf checks sequential mode
    generate_tiny(workdir, settings, exhaustive=True)


def test_funnel_matches_hand_counts(workdir: Path, settings: LLMSettings) -> None:
    _generate(workdir, settings)
    report = sane.report(workdir / "suite.db").model_dump(mode="json")

    assert report["validity"] == {
        "candidate_recipes": 4,
        "aligned_recipes": 2,
        "cases": 8,
        "realized_cases": 6,
        "applicable_cases": 5,
        "joint_valid_cases": 5,
        "validated_families": 1,
    } | {
        k: v
        for k, v in report["validity"].items()
        if k
        not in {
            "candidate_recipes",
            "aligned_recipes",
            "cases",
            "realized_cases",
            "applicable_cases",
            "joint_valid_cases",
            "validated_families",
        }
    }


def test_decisions_record_each_vote(workdir: Path, settings: LLMSettings) -> None:
    _generate(workdir, settings)
    store = SuiteStore(workdir / "suite.db")
    alignment = store.decisions(Question.alignment)
    realization = store.decisions(Question.realization)
    families = {f.recipe_id: f for f in store.families()}
    store.close()

    assert alignment["rec-1-2"].decision is Decision.no
    unresolved = alignment["rec-2-2"]
    assert unresolved.decision is Decision.unresolved
    assert [v.decision for v in unresolved.votes] == [
        Decision.yes,
        Decision.no,
        Decision.unresolved,
    ]
    assert unresolved.votes[2].error  # the parse failure is kept with the vote
    assert all(v.rationale for v in alignment["rec-1-1"].votes)

    # one unparseable realization vote does not break a 2-of-3 majority
    case3 = realization["rec-1-1/case-3"]
    assert case3.decision is Decision.yes
    assert sum(v.decision is Decision.unresolved for v in case3.votes) == 1
    # the case whose generation failed has no votes at all: it is not realized
    assert "rec-1-1/case-2" not in realization

    assert families["rec-1-1"].joint_valid == 3 and families["rec-1-1"].validated
    assert families["rec-2-1"].joint_valid == 2 and not families["rec-2-1"].validated
    assert set(families) == {"rec-1-1", "rec-2-1"}


def test_execute_counts_faults_passes_and_errors(workdir: Path, settings: LLMSettings) -> None:
    _generate(workdir, settings)
    records = sane.execute(
        workdir / "suite.db", spec=workdir / "tiny_spec.yaml", llm=settings, timeout_s=5
    )
    by_target: dict[str, list[str]] = {}
    for record in records:
        by_target.setdefault(record.target, []).append(record.verdict.value)
    # only the 3 joint-valid cases of the one validated family run
    assert {t: sorted(v) for t, v in by_target.items()} == {
        "careful": ["pass"] * 3,
        "lazy": ["fault"] * 3,
        "broken": ["error"] * 3,
    }

    targets = sane.report(workdir / "suite.db").model_dump(mode="json")["targets"]
    assert targets["careful"]["pass_rate"] == 1.0 and targets["careful"]["faults"] == 0
    assert targets["lazy"]["pass_rate"] == 0.0 and targets["lazy"]["faults"] == 3
    assert targets["lazy"]["fault_detecting_families"] == 1
    assert targets["broken"]["pass_rate"] is None and targets["broken"]["faults"] == 0
    assert targets["broken"]["errors"] == 3


def test_rerun_replays_from_cache(workdir: Path, settings: LLMSettings) -> None:
    _generate(workdir, settings)
    (workdir / "suite.db").unlink()
    _generate(workdir, settings)
    store = SuiteStore(workdir / "suite.db")
    calls = store.calls()
    store.close()
    assert calls and all(c.cached for c in calls if c.error is None)


def test_a_run_with_another_tolerance_bar_checks_the_cases_again(
    workdir: Path, settings: LLMSettings
) -> None:
    """Verdicts kept from a run under another `--tolerance-floor` (or `--tolerance-spread`)
    would report that bar's results as this run's: the stored results are checked again
    under the bar asked for, from their stored scores (no call); a target whose stored
    tolerance has no spread (a suite executed before it was measured) runs again."""
    _generate(workdir, settings)
    suite, spec = workdir / "suite.db", workdir / "tiny_spec.yaml"
    run = {"spec": spec, "llm": settings, "timeout_s": 5, "targets": ["careful"]}
    first = sane.execute(suite, **run)
    assert [r.verdict.value for r in first] == ["pass"] * 3  # 5 -> 2 of 1..5: 0.75 drop
    said: list[str] = []
    higher = sane.execute(suite, **run, tolerance_floor=0.8, notice=said.append)
    assert [r.verdict.value for r in higher] == ["fault"] * 3  # 0.75 is within 0.8
    assert {r.tolerance for r in higher} == {0.8} and len(higher.new) == 3
    assert [r.scores for r in higher] == [r.scores for r in first]  # not scored again
    assert (
        "careful: its results were checked with tolerance floor 0 and spread share 0.1; "
        "checked again from its stored scores with 0.8 and 0.1 (no call)"
    ) in said  # and the null scorers beside it
    again = sane.execute(suite, **run, tolerance_floor=0.8)
    assert [r.verdict.value for r in again] == ["fault"] * 3 and again.new == []
    # another share is another bar, checked again; under it the floor still decides
    said.clear()
    shared = sane.execute(
        suite, **run, tolerance_floor=0.8, tolerance_spread=0.2, notice=said.append
    )
    assert shared.new == [] and said and all(x.endswith("0.8 and 0.2 (no call)") for x in said)

    # a tolerance stored before the spread was measured: the bar cannot be recomputed
    store = SuiteStore(suite)
    old = {k: v for k, v in store.tolerances()["careful"].items() if k != "spread"}
    store.put_tolerance("careful", old)
    store.close()
    said.clear()
    rerun = sane.execute(suite, **run, notice=said.append)
    assert [r.verdict.value for r in rerun] == ["pass"] * 3 and len(rerun.new) == 3
    assert [x.split(":")[0] for x in said if x.endswith("run again with 0 and 0.1")] == ["careful"]
