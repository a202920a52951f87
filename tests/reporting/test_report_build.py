"""build_report on hand-built suites: funnel, pass rates, ranking, errors, alignment."""

from __future__ import annotations

import json
import math

import pytest
from scipy import stats

from sane.records import CallRecord, Family
from sane.reporting import Report, build_report

Y, N, U = "yes", "no", "unresolved"


def wilson(passes: int, total: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval written out, to check the report independently."""
    p = passes / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return centre - half, centre + half


# ---------------------------------------------------------------------- funnel


@pytest.fixture
def funnel_suite(kit):
    plans = [
        kit.Plan("r1", Y, [(Y, Y), (Y, Y), (Y, Y), (Y, N)]),
        kit.Plan("r2", N, [(Y, Y), (Y, Y), (Y, Y)]),
        kit.Plan("r3", Y, [(Y, Y), (Y, Y), (U, Y), (Y, U)]),
        kit.Plan("r4", U),
        kit.Plan("r5", None),
        kit.Plan("r6", Y, [(None, None), (N, Y), (Y, None)]),
    ]
    return kit.snapshot(plans, cases_per_recipe=4)  # tau = 3


def test_funnel_counts_from_decisions(funnel_suite):
    validity = build_report(funnel_suite).validity
    assert validity.candidate_recipes == 6
    assert validity.aligned_recipes == 3  # r1, r3, r6: unresolved and missing are not yes
    assert validity.cases == 14
    assert validity.realized_cases == 4 + 3 + 3 + 1
    assert validity.applicable_cases == 3 + 3 + 2 + 0
    assert validity.joint_valid_cases == 3 + 0 + 2 + 0  # r2 is not aligned
    assert validity.validated_families == 1  # only r1 reaches tau = 3
    assert validity.tau == 3
    assert validity.unresolved == {"alignment": 1, "realization": 1, "applicability": 1}
    nested = [
        validity.cases,
        validity.realized_cases,
        validity.applicable_cases,
        validity.joint_valid_cases,
    ]
    assert nested == sorted(nested, reverse=True)


def test_explicit_tau_changes_validation(kit):
    plans = [kit.Plan("r1", Y, [(Y, Y), (Y, Y), (Y, N), (N, Y)])]
    assert build_report(kit.snapshot(plans, tau=2)).validity.validated_families == 1
    assert build_report(kit.snapshot(plans, tau=3)).validity.validated_families == 0


def test_the_report_reads_the_family_decisions_the_pipeline_stored(funnel_suite):
    """The families stage (or `sane review apply`) decides a family; the report shows that
    decision and does not count it again."""
    decided = Family(
        recipe_id="r3", cases=4, realized=3, applicable=2, joint_valid=3, tau=3, validated=True
    )  # as a reviewer's decisions would have it: the decisions in the snapshot give r3 two
    stored = [decided if f.recipe_id == "r3" else f for f in funnel_suite.families]
    report = build_report(funnel_suite.model_copy(update={"families": stored}))
    assert build_report(funnel_suite).validity.validated_families == 1  # r1
    assert report.validity.validated_families == 2  # r1 and r3, as stored
    rows = {row.tau: row for row in report.threshold_sensitivity}
    assert rows[3].validated == 2
    assert not report.warnings


def test_a_family_not_decided_yet_is_counted_from_the_decisions_so_far(funnel_suite):
    """A generation under way (a live view) has no stored families: they are counted."""
    assert build_report(funnel_suite.model_copy(update={"families": []})) == build_report(
        funnel_suite
    )


# ------------------------------------------------------------- targets, ranking


@pytest.fixture
def executed_suite(kit):
    """Two validated families of 3 joint-valid cases; four targets, one only erroring."""
    plans = [
        kit.Plan("mono", Y, [(Y, Y), (Y, Y), (Y, Y), (Y, N)]),
        kit.Plan(
            "rob",
            Y,
            [(Y, Y)] * 3,
            requirement="robustness",
            relation={"kind": "invariant"},
            capability="cap-2",
        ),
        kit.Plan("weak", Y, [(Y, Y), (N, N), (N, N), (N, N)]),
    ]
    verdicts = {
        "A": ["pass", "pass", "fault", "pass", "pass", "error"],
        "B": ["error"] * 6,
        "C": ["pass", "pass", "pass", "pass", "fault", "error"],
        "D": ["pass"] * 6,
    }
    case_ids = ["mono/0", "mono/1", "mono/2", "rob/0", "rob/1", "rob/2"]
    executions = [
        kit.run(target, case_id, verdict, error="boom" if verdict == "error" else None)
        for target, row in verdicts.items()
        for case_id, verdict in zip(case_ids, row, strict=True)
    ]
    executions += [kit.run("A", "mono/3", "fault"), kit.run("A", "weak/0", "fault")]
    errors = [
        {"stage": "cases", "message": "bad json"},
        {"stage": "cases", "message": "timeout"},
        {"stage": "alignment", "message": "no majority", "subject": "x", "target": ""},
        {"stage": "tolerance", "message": "repeat failed", "target": "C"},
    ]
    calls = [
        CallRecord(
            key="k1",
            task="alignment:mono",
            model="m",
            cached=True,
            prompt_tokens=10,
            completion_tokens=5,
            cost=0.01,
            latency_s=1.0,
        ),
        CallRecord(
            key="k2",
            task="alignment:rob",
            model="m",
            cached=False,
            prompt_tokens=20,
            completion_tokens=5,
            cost=0.02,
            latency_s=3.0,
            error="rate limit",
        ),
        CallRecord(
            key="k3",
            task="cases.mono",
            model="m",
            cached=False,
            prompt_tokens=1,
            completion_tokens=1,
            latency_s=2.0,
        ),
    ]
    return kit.snapshot(
        plans,
        executions,
        errors=errors,
        calls=calls,
        targets=["A", "B", "C", "D", "E"],
        tolerances={"D": 0.1},
    )


def test_pass_rates_and_counts(executed_suite):
    targets = build_report(executed_suite).targets
    a = targets["A"]
    assert (a.passes, a.faults, a.errors, a.cases_run) == (4, 1, 1, 6)
    assert a.pass_rate == pytest.approx(4 / 5)
    assert a.fault_detecting_families == 1
    assert a.by_requirement["monotonicity"].pass_rate == pytest.approx(2 / 3)
    assert a.by_requirement["monotonicity"].cases == 3
    assert a.by_requirement["robustness"].pass_rate == 1.0
    assert a.by_requirement["robustness"].errors == 1
    assert a.by_capability["cap-2"].requirement == "robustness"
    assert a.by_family["mono"].relation == "decrease"
    assert a.tolerance == 0.05
    assert targets["D"].tolerance == 0.1  # the stored tolerance wins
    assert a.pass_rate_ci == pytest.approx(wilson(4, 5))


def test_errors_are_neither_passes_nor_faults(executed_suite):
    report = build_report(executed_suite)
    b = report.targets["B"]
    assert (b.passes, b.faults, b.errors, b.cases_run) == (0, 0, 6, 6)
    assert b.pass_rate is None and b.pass_rate_ci is None
    assert b.by_requirement["monotonicity"].pass_rate is None
    assert report.errors.by_target == {"A": 1, "B": 6, "C": 2}
    assert report.errors.by_stage == {"alignment": 1, "cases": 2, "tolerance": 1}
    assert report.errors.total == 4 + 8
    assert report.targets["C"].errors == 1  # the tolerance error is no case verdict
    assert all(e.message == "boom" for e in report.errors.execution)


def test_executions_outside_the_validated_suite_are_left_out(executed_suite):
    report = build_report(executed_suite)
    # A faulted on mono/3 (not applicable) and weak/0 (family not validated): not counted.
    assert report.targets["A"].faults == 1
    assert not any(f.case_id in {"mono/3", "weak/0"} for f in report.faults)
    assert any("2 execution(s)" in w for w in report.warnings)


def test_ranking_ties_share_rank_and_unrated_come_last(executed_suite):
    report = build_report(executed_suite)
    ranking = [(e.target, e.pass_rate, e.rank, e.tied) for e in report.ranking]
    # a handful of cases separates nobody: every rated target shares rank 1, best first
    assert ranking == [
        ("D", 1.0, 1, True), ("A", 0.8, 1, True), ("C", 0.8, 1, True), ("B", None, None, False)
    ]  # fmt: skip
    assert report.span == pytest.approx(1.0 - 0.8)
    assert report.not_executed == ["E"]
    assert report.validity.fault_detecting_families == 2  # mono (A) and rob (C)


def test_fault_evidence(executed_suite):
    faults = build_report(executed_suite).faults
    assert [(f.target, f.case_id) for f in faults] == [("A", "mono/2"), ("C", "rob/1")]
    rob = faults[1]
    assert rob.requirement == "robustness"
    assert rob.relation == "invariant"
    assert rob.capability == "name of cap-2"
    assert rob.variants["perturbed"] == "perturbed text of rob/1"
    assert rob.scores == {"original": [0.9], "perturbed": [0.5]}
    assert rob.tolerance == 0.05 and rob.detail == "fault on rob/1"


def test_threshold_sensitivity_rows(executed_suite):
    rows = {row.tau: row for row in build_report(executed_suite).threshold_sensitivity}
    assert sorted(rows) == [2, 3, 4]
    assert rows[3].validated == 2 and rows[3].unexecuted == 0
    assert rows[3].fault_detecting == {"A": 1, "B": 0, "C": 1, "D": 0}
    assert rows[3].fault_detecting_any == 2
    assert rows[2].validated == 2  # weak has 1 joint-valid case
    assert rows[4].validated == 0 and rows[4].fault_detecting_any == 0


def test_calls_summary(executed_suite):
    calls = build_report(executed_suite).calls
    assert (calls.total, calls.cached, calls.errors) == (3, 1, 1)
    assert calls.tokens == 42 and calls.cost == pytest.approx(0.03)
    assert calls.mean_latency_s == pytest.approx(2.0)
    assert set(calls.by_task) == {"alignment", "cases"}
    assert calls.by_task["alignment"].total == 2


def test_json_has_the_design_contract(executed_suite):
    document = json.loads(json.dumps(build_report(executed_suite).model_dump(mode="json")))
    assert set(document["suite"]) >= {"scorer", "model", "created"}
    assert set(document["validity"]) >= {
        "candidate_recipes",
        "aligned_recipes",
        "cases",
        "realized_cases",
        "applicable_cases",
        "joint_valid_cases",
        "validated_families",
    }
    target = document["targets"]["A"]
    assert set(target) >= {
        "pass_rate",
        "cases_run",
        "faults",
        "fault_detecting_families",
        "by_requirement",
        "errors",
        "pass_rate_ci",
        "by_capability",
        "tolerance",
    }
    assert set(target["by_requirement"]["monotonicity"]) >= {"pass_rate", "cases"}
    assert set(document["ranking"][0]) == {
        "target", "pass_rate", "rank", "tied", "ci", "ci_method", "cases", "errors", "note",
        "default_score", "default_score_ci", "discriminating_cases", "ranked_by",
        "pass_rate_rank", "pass_rate_tied",
    }  # fmt: skip
    assert document["ranked_by"] == "default_score" and document["ranking_order"]
    assert set(document["ranking_by_requirement"]["monotonicity"][0]) == {
        "target", "pass_rate", "rank", "tied", "ci", "ci_method", "cases", "errors", "note"
    }  # fmt: skip
    for tested in ("comparisons", "default_score_comparisons"):
        assert {"a", "b", "cases", "difference", "difference_ci", "p_value", "p_adjusted",
                "significant"} <= set(document[tested][0])  # fmt: skip
    assert Report.model_validate(document) == build_report(executed_suite)


# ---------------------------------------------------------------- edge suites


def test_empty_suite(kit):
    report = build_report(kit.snapshot([]), human={"x": 1.0, "y": 2.0, "z": 3.0})
    v = report.validity
    assert (v.candidate_recipes, v.cases, v.joint_valid_cases, v.validated_families) == (0,) * 4
    assert report.targets == {} and report.ranking == [] and report.span is None
    assert report.faults == [] and report.errors.total == 0 and report.calls.total == 0
    assert all(row.validated == 0 for row in report.threshold_sensitivity)
    h = report.human_alignment
    assert h.spearman is None and h.kendall is None and h.n == 0 and "undefined" in h.note
    assert h.only_in_human == ["x", "y", "z"]


def test_single_target(kit):
    plans = [kit.Plan("r", Y, [(Y, Y)] * 3)]
    runs = [
        kit.run("solo", "r/0", "pass"),
        kit.run("solo", "r/1", "fault"),
        kit.run("solo", "r/2", "pass"),
    ]
    report = build_report(kit.snapshot(plans, runs), human={"solo": 0.7})
    assert [(e.target, e.rank) for e in report.ranking] == [("solo", 1)]
    assert report.targets["solo"].pass_rate == pytest.approx(2 / 3)
    assert report.span == 0.0
    assert report.human_alignment.spearman is None
    assert report.human_alignment.n == 1


# ------------------------------------------------------------ human alignment


@pytest.fixture
def ranked_suite(kit):
    """Five targets passing 1..5 of 5 joint-valid cases."""
    plans = [kit.Plan("r", Y, [(Y, Y)] * 5)]
    runs = [
        kit.run(f"t{k}", f"r/{i}", "pass" if i < k else "fault")
        for k in range(1, 6)
        for i in range(5)
    ]
    return kit.snapshot(plans, runs, cases_per_recipe=5)


def test_human_alignment_matches_scipy(ranked_suite):
    human = {"t1": 0.3, "t2": 0.1, "t3": 0.5, "t4": 0.9, "t5": 0.7, "other": 0.2}
    h = build_report(ranked_suite, human=human, n_resamples=500).human_alignment
    suite_rates = [0.2, 0.4, 0.6, 0.8, 1.0]
    human_values = [0.3, 0.1, 0.5, 0.9, 0.7]
    assert h.n == 5 and h.only_in_human == ["other"] and h.only_in_suite == []
    assert h.spearman == pytest.approx(stats.spearmanr(suite_rates, human_values).statistic)
    assert h.kendall == pytest.approx(stats.kendalltau(suite_rates, human_values).statistic)
    for ci in (h.spearman_ci, h.kendall_ci):
        assert -1.0 <= ci[0] <= ci[1] <= 1.0


def test_human_ranks_where_one_is_best(ranked_suite):
    human_ranks = {"t1": 5, "t2": 4, "t3": 3, "t4": 2, "t5": 1}
    h = build_report(
        ranked_suite, human=human_ranks, human_higher_is_better=False, n_resamples=200
    ).human_alignment
    assert h.spearman == pytest.approx(1.0) and h.kendall == pytest.approx(1.0)


def test_constant_human_scores_are_undefined(ranked_suite):
    h = build_report(ranked_suite, human={f"t{k}": 0.5 for k in range(1, 6)}).human_alignment
    assert h.spearman is None and h.kendall is None and "constant" in h.note
