"""Rankings that claim no more than the cases show: shared ranks, paired comparisons,
intervals with width at 0/n and n/n."""

from __future__ import annotations

from sane.reporting import build_report, render_markdown

Y = "yes"


def _snapshot(kit, passes: dict[str, int], cases: int = 20):
    plans = [kit.Plan("r", Y, [(Y, Y)] * cases)]
    runs = [
        kit.run(target, f"r/{i}", "pass" if i < n else "fault")
        for target, n in passes.items()
        for i in range(cases)
    ]
    return kit.snapshot(plans, runs, cases_per_recipe=cases)


def test_a_clear_gap_separates_and_a_small_one_shares_the_rank(kit):
    report = build_report(_snapshot(kit, {"v1": 5, "v2": 20, "v3": 19}))
    ranking = [(e.target, e.rank, e.tied) for e in report.ranking]
    assert ranking == [("v2", 1, True), ("v3", 1, True), ("v1", 3, False)]
    pairs = {frozenset((c.a, c.b)): c for c in report.comparisons}
    assert len(pairs) == 3
    gap = pairs[frozenset(("v2", "v1"))]
    assert gap.significant and gap.better == "v2" and gap.p_adjusted >= gap.p_value
    close = pairs[frozenset(("v2", "v3"))]
    assert not close.significant and close.only_a_passes + close.only_b_passes == 1


def test_twenty_of_twenty_has_an_interval_with_width(kit):
    report = build_report(_snapshot(kit, {"perfect": 20, "half": 10}))
    perfect = next(e for e in report.ranking if e.target == "perfect")
    assert perfect.ci_method == "wilson" and perfect.ci[0] < 0.9 and perfect.ci[1] == 1.0
    half = next(e for e in report.ranking if e.target == "half")
    assert half.ci_method == "bootstrap" and half.ci[0] < 0.5 < half.ci[1]


def test_markdown_marks_shared_ranks_and_lists_the_pairs(kit):
    markdown = render_markdown(build_report(_snapshot(kit, {"v1": 5, "v2": 20, "v3": 19})))
    # one "decrease" family: the default score is the pass rate, and so are the two ranks
    assert "| 1= | v2 | 1.000 [1.000, 1.000] (20) | 100.0% |" in markdown
    assert "| 3 | v1 | 0.250 [0.100, 0.450] (20) | 25.0% | [10.0%, 45.0%] | 3 |" in markdown
    assert "### Paired comparisons of the default scores" in markdown
    assert "| v2 | v1 | 20 (20) | 15 | 0 | +0.750" in markdown
    assert "### Paired comparisons of the pass rates" in markdown
    assert "| v2 | v1 | 20 | 15 | 0 | +0.750" in markdown and "v2 better" in markdown
    assert "Rank: 1 + the number of targets" in markdown and "Tolerance: " in markdown
