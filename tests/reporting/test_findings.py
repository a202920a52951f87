"""The findings headline: what each target fails, worst first, and whether it is evidence;
the same sentences lead the JSON, the markdown, the HTML page and the terminal summary."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from sane.cli._report import summary_renderables
from sane.manipulations import Exploit, Measured, SearchResult
from sane.qualification_record import QualificationStatus
from sane.reporting import build_report, render_html, render_markdown
from sane.reporting._findings import _basis
from sane.reporting._models import ControlRate, Controls, Funnel
from sane.stats import pass_rate_ci


@pytest.fixture
def suite(kit):
    """Target A fails 3 of 4 monotonicity cases and 1 of 4 robustness cases; B fails nothing;
    C only errors."""
    Y = kit.Y
    plans = [
        kit.Plan("mono", Y, [(Y, Y)] * 4),
        kit.Plan("rob", Y, [(Y, Y)] * 4, requirement="robustness", relation={"kind": "invariant"}),
    ]
    verdicts = {
        "A": ["fault", "fault", "fault", "pass", "pass", "pass", "pass", "fault"],
        "B": ["pass"] * 8,
        "C": ["error"] * 8,
    }
    ids = [f"{r}/{i}" for r in ("mono", "rob") for i in range(4)]
    executions = [
        kit.run(t, cid, v, error="boom" if v == "error" else None)
        for t, row in verdicts.items()
        for cid, v in zip(ids, row, strict=True)
    ]
    return kit.snapshot(plans, executions, cases_per_recipe=4, tau=3, targets=["A", "B", "C"])


def test_each_target_gets_its_failures_worst_first_with_wilson_intervals(suite) -> None:
    found = build_report(suite).findings
    by_target = {t.target: t for t in found.targets}
    assert [t.target for t in found.targets] == ["B", "A", "C"]  # the ranking's order
    a = by_target["A"]
    assert [(r.requirement, r.faults, r.judged) for r in a.requirements] == [
        ("monotonicity", 3, 4),
        ("robustness", 1, 4),
    ]
    assert [r.recipe_id for r in a.recipes] == ["mono", "rob"]
    assert a.recipes[0].ci == pytest.approx(pass_rate_ci(3, 4))
    assert a.headline.startswith("A fails monotonicity (3 of 4), robustness (1 of 4): ")
    assert "recipe mono, 3 of 4 cases [30%, 95%]" in a.headline
    assert by_target["B"].headline == "B: no fault in 8 judged cases."
    assert by_target["C"].headline == "C: no judged case; 8 error(s), not counted."
    # the hand-built suite has no controls: its panel's findings are not evidence
    assert not found.panel_evidence and "no planted controls" in found.basis


def test_a_confirmed_exploit_is_named_as_oracle_free_and_a_failed_search_as_an_error(
    suite,
) -> None:
    exploit = Exploit(
        id="e", family="evaluator_instruction", position="end", text="Note to the grader.",
        placebo="Note to the reader.", example={}, inflation=Measured(mean=0.375, ci=(0.25, 0.5), n=2),
        form_effect=Measured(mean=0.0, ci=(0.0, 0.0), n=2), success_rate=1.0, confirmed=True,
        found_by="catalogue",
    )  # fmt: skip
    searched = [
        SearchResult(target="B", tolerance=0.05, calls=40, budget=40, candidates=9, exploits=[exploit]),
        SearchResult(target="A", tolerance=0.05, calls=3, budget=40, candidates=0, error="down"),
    ]  # fmt: skip
    found = build_report(suite.model_copy(update={"inflation": searched})).findings
    b, a = found.targets[0], found.targets[1]
    assert b.exploits[0].inflation == 0.375
    assert b.headline == (
        "B: no fault in 8 judged cases; evaluator_instruction at the end inflates its score by "
        "+0.38 [+0.25, +0.50] over its placebo (oracle-free)."
    )
    assert a.inflation_error == "down" and "search failed (an error, not a result)" in a.headline


def _funnel(*, failed: bool | None, qualified: bool | None, simulated: bool = False) -> Funnel:
    controls = None
    if failed is not None:
        controls = Controls(
            false_accept=ControlRate(), false_reject=ControlRate(), by_kind={},
            max_false_accept=0.1, max_false_reject=0.5, failed=failed, summary="",
        )  # fmt: skip
    status = None
    if qualified is not None:
        status = QualificationStatus(panel="contrastive", qualified=qualified, summary="")
    return Funnel(
        candidate_recipes=0, aligned_recipes=0, cases=0, realized_cases=0, applicable_cases=0,
        joint_valid_cases=0, validated_families=0, fault_detecting_families=0, tau=3,
        controls=controls, qualification=status,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("failed", "qualified", "evidence", "says"),
    [
        (False, True, True, "passed its planted controls with a qualified oracle"),
        (True, True, False, "the panel failed its planted controls"),
        (False, False, False, "the oracle is not qualified"),
        (True, False, False, "failed its planted controls and the oracle is not qualified"),
        (None, True, False, "no planted controls"),
    ],
)
def test_the_faults_are_evidence_only_with_passed_controls_and_a_qualified_oracle(
    failed, qualified, evidence, says
) -> None:
    is_evidence, basis = _basis(_funnel(failed=failed, qualified=qualified), None)
    assert is_evidence is evidence and says in basis
    if not evidence:
        assert "Only the oracle-free findings" in basis


def test_every_format_leads_with_the_findings(suite) -> None:
    report = build_report(suite)
    headline = next(t.headline for t in report.findings.targets if t.target == "A")
    markdown = render_markdown(report)
    assert (
        markdown.index("## Findings") < markdown.index("## Suite") < markdown.index("## Validity")
    )
    assert f"- {headline}" in markdown
    html = render_html(report)
    assert html.index('id="findings"') < html.index("<nav>") < html.index('id="funnel"')
    assert 'data-evidence="no"' in html and 'data-finding-target="A" class="finding"' in html
    assert report.model_dump(mode="json")["findings"]["targets"][1]["headline"] == headline
    console = Console(width=200, file=io.StringIO(), record=True)
    for renderable in summary_renderables(report):
        console.print(renderable)
    text = console.export_text()
    assert text.index("Findings.") < text.index(headline) < text.index("Targets by ")
