"""The ranking is ordered by the default score (issue 51): a scorer that never moves cannot win
it, ranks claim only what the paired test of default scores shows, and a target without a
default score ranks after those with one, by pass rate, saying why."""

from __future__ import annotations

import html
import io
import json

import pytest
from rich.console import Console

from sane.reporting import build_report, render_html, render_markdown
from sane.reporting.formatting import NO_DEFAULT_SCORE, ORDER_BY_DEFAULT_SCORE, ORDER_BY_PASS_RATE

Y = "yes"
CASES = 10


def _suite(kit, targets: dict[str, tuple[int, int]], *, invariant=8, decrease=2, only=None):
    """`invariant` invariance families and `decrease` decrease families of CASES cases each;
    a target fails its first ``fails`` invariance cases (spread over the families) and passes
    its first ``passes`` decrease cases. ``only``: target -> the family prefix it ran alone."""
    plans = [
        kit.Plan(f"inv{k}", Y, [(Y, Y)] * CASES, requirement="robustness",
                 relation={"kind": "invariant"}, capability="cap-r")
        for k in range(invariant)
    ] + [kit.Plan(f"dec{k}", Y, [(Y, Y)] * CASES, capability="cap-m") for k in range(decrease)]  # fmt: skip
    runs = []
    for target, (fails, passes) in targets.items():
        for kind, count, bad in (("inv", invariant, fails), ("dec", decrease, passes)):
            if only and only.get(target, kind) != kind:
                continue
            for index in range(count * CASES):
                family, case = index % count, index // count
                hit = index < bad
                verdict = ("fault" if hit else "pass") if kind == "inv" else (
                    "pass" if hit else "fault")  # fmt: skip
                runs.append(kit.run(target, f"{kind}{family}/{case}", verdict))
    return kit.snapshot(plans, runs, cases_per_recipe=CASES)


def test_a_constant_scorer_that_passes_most_of_an_invariance_heavy_suite_is_not_ranked_first(kit):
    # the constant passes every invariance case (80) and no decrease case (20): 0.80; the judge
    # fails 20 invariance cases and passes 19 decrease cases: 0.79, a lower pass rate
    report = build_report(_suite(kit, {"constant": (0, 0), "judge": (20, 19)}))
    entries = {e.target: e for e in report.ranking}
    constant, judge = entries["constant"], entries["judge"]
    assert constant.pass_rate == 0.8 > judge.pass_rate == 0.79
    assert constant.pass_rate_rank == judge.pass_rate_rank == 1  # McNemar: 20 against 19
    assert constant.default_score == 0.5 and judge.default_score == (0.75 + 0.95) / 2
    assert [e.target for e in report.ranking] == ["judge", "constant"]
    assert (judge.rank, judge.tied, constant.rank, constant.tied) == (1, False, 2, False)
    assert {judge.ranked_by, constant.ranked_by} == {"default_score"}
    (pair,) = report.default_score_comparisons
    assert pair.better == "judge" and pair.p_adjusted < 0.05
    assert report.ranked_by == "default_score" and report.ranking_order == ORDER_BY_DEFAULT_SCORE


def test_default_scores_no_test_separates_share_a_rank(kit):
    report = build_report(_suite(kit, {"judge": (20, 19), "rival": (18, 17), "constant": (0, 0)}))
    entries = {e.target: e for e in report.ranking}
    judge, rival = entries["judge"], entries["rival"]
    assert judge.default_score > rival.default_score  # the point estimates differ...
    pair = next(c for c in report.default_score_comparisons if {c.a, c.b} == {"judge", "rival"})
    assert not pair.significant and pair.p_adjusted >= 0.05
    assert (judge.rank, rival.rank) == (1, 1) and judge.tied and rival.tied  # ...not the ranks
    assert [e.target for e in report.ranking][:2] == ["judge", "rival"]  # higher score first
    markdown = render_markdown(report)
    assert "| 1= | judge |" in markdown and "| 1= | rival |" in markdown


def test_a_target_without_a_discriminating_case_is_ranked_last_and_says_why(kit):
    # "partial" ran the invariance families only and passed them all: the best pass rate, no
    # default score
    snapshot = _suite(
        kit, {"judge": (20, 19), "constant": (0, 0), "partial": (0, 0)}, only={"partial": "inv"}
    )
    report = build_report(snapshot)
    last = report.ranking[-1]
    assert last.target == "partial" and last.pass_rate == 1.0 and last.default_score is None
    assert (
        last.rank == 3 and last.ranked_by == "pass_rate" and last.note.startswith(NO_DEFAULT_SCORE)
    )
    assert [e.rank for e in report.ranking] == [1, 2, 3]
    assert report.ranking_order.startswith(ORDER_BY_DEFAULT_SCORE)
    assert "ranks after, by pass rate" in report.ranking_order
    ranking = render_markdown(report).split("## Ranking", 1)[1]
    row = next(line for line in ranking.splitlines() if "| partial |" in line)
    assert row.startswith("| 3 | partial | — | 100.0% |") and "no default score: " in row


def test_a_suite_without_a_discriminating_case_is_ranked_by_pass_rate_and_says_so(kit):
    report = build_report(_suite(kit, {"a": (0, 0), "b": (30, 0)}, decrease=0))
    assert report.ranked_by == "pass_rate" and report.ranking_order == ORDER_BY_PASS_RATE
    assert [(e.target, e.rank, e.ranked_by) for e in report.ranking] == [
        ("a", 1, "pass_rate"),
        ("b", 2, "pass_rate"),
    ]
    # the order line says why, once: no entry repeats it
    assert all(e.rank == e.pass_rate_rank for e in report.ranking)
    assert not any(NO_DEFAULT_SCORE in (e.note or "") for e in report.ranking)
    assert report.default_score_comparisons == []


def test_every_format_says_which_score_orders_the_ranking(kit):
    from sane.cli._report import rank_tables, summary_renderables

    report = build_report(
        _suite(kit, {"constant": (0, 0), "judge": (20, 19)}), human={"judge": 0.9, "constant": 0}
    )
    line = report.ranking_order
    assert f"{line}." in render_markdown(report).split("## Ranking", 1)[1]
    assert f"data-ranking-order>{line}." in html.unescape(render_html(report))
    console = Console(width=400, record=True, file=io.StringIO())
    for renderable in [*rank_tables(report), *summary_renderables(report)]:
        console.print(renderable)
    text = " ".join(console.export_text().split())
    assert text.count(line) == 2 and "Targets by default score" in text
    document = json.loads(report.model_dump_json())
    assert document["ranked_by"] == "default_score" and document["ranking_order"] == line
    assert document["ranking"][0]["pass_rate_rank"] == 1
    # the human benchmark is compared with both scores, the ranking's first
    assert report.human_alignment.default_score.n == 2
    assert "Spearman rho, default score (the ranking's order)" in render_markdown(report)


def test_a_judge_the_default_score_shows_better_than_the_planted_constant_is_not_flagged(kit):
    """On an invariance-heavy suite the planted constant passes more cases (0.80) than a judge
    that moves where it must (0.79): McNemar cannot tell them apart, the paired test of default
    scores can, so the judge is shown better than a scorer that never moves; a judge that
    fails what the constant fails and more is still flagged."""
    from pathlib import Path

    from sane.scorers.null_scorers import CONSTANT, null_targets
    from sane.scorers.suite_targets import frozen

    snapshot = _suite(kit, {CONSTANT: (0, 0), "judge": (20, 19), "sloppy": (40, 2)})
    planted = [frozen(c, Path("."), "planted") for c in null_targets() if c.name == CONSTANT]
    report = build_report(snapshot.model_copy(update={"targets": planted}))
    assert report.targets["judge"].pass_rate < 0.8  # below the constant by pass rate
    assert report.planted_targets.not_shown_better == ["sloppy"]


def test_a_scorer_that_never_moves_gets_one_half_at_its_own_level_whatever_the_level_cases(kit):
    """A level case ("a fully unfaithful summary scores in [0, 0.3]") is passed by a scorer that
    never moves from a low level: it is evidence of moving only for a target that sits outside
    the band. Classed at any level, it gave such a scorer 0.75, above a judge that reads."""
    band = {"kind": "at_level", "variant": "original", "low": 0.0, "high": 0.3}
    plans = [
        kit.Plan("dec", Y, [(Y, Y)] * CASES, capability="cap-m"),
        kit.Plan("inv", Y, [(Y, Y)] * CASES, requirement="robustness",
                 relation={"kind": "invariant"}, capability="cap-r"),
        kit.Plan("low", Y, [(Y, Y)] * CASES, requirement="calibration", relation=band,
                 capability="cap-c"),
    ]  # fmt: skip
    verdicts = {  # target -> family -> cases passed
        "stuck-low": {"dec": 0, "inv": CASES, "low": CASES},  # 0.1 on every text
        "judge": {"dec": 8, "inv": 8, "low": 6},  # scores the examples as given at 0.8
    }
    runs = [
        kit.run(target, f"{family}/{case}", "pass" if case < passed else "fault")
        for target, by_family in verdicts.items()
        for family, passed in by_family.items()
        for case in range(CASES)
    ]
    at_any_level = kit.snapshot(plans, runs, cases_per_recipe=CASES)
    before = {e.target: e.default_score for e in build_report(at_any_level).ranking}
    assert before == {"stuck-low": 0.75, "judge": ((0.8 + 0.6) / 2 + 0.8) / 2}

    at_own_level = at_any_level.model_copy(update={"levels": {"stuck-low": 0.1, "judge": 0.8}})
    report = build_report(at_own_level)
    entries = {e.target: e for e in report.ranking}
    assert entries["stuck-low"].default_score == 0.5  # moves 0 (dec), holds 1 (inv, low)
    assert entries["judge"].default_score == before["judge"]  # outside the band: as before
    assert [e.target for e in report.ranking] == ["judge", "stuck-low"]
    (pair,) = report.default_score_comparisons
    assert (pair.classed_apart, pair.cases) == (CASES, 2 * CASES)  # the level cases left out
    from sane.cli._report import score_comparison_line

    said = f"{CASES} level case(s) left out"
    assert said in score_comparison_line(pair)
    assert f"{CASES} level cases left out" in html.unescape(render_html(report))


def test_compare_asks_whether_the_rankings_conclusion_reproduces_not_the_pass_rates(kit):
    """`sane compare` reads each suite's ranking as the report orders it: by the default
    score and the sign-flip test its ranks rest on; the pass rates' McNemar test beside.
    Here the judge beats the constant by the default score in both suites, which McNemar
    (20 passes against 19) cannot show, and the pass rates order the three the other way."""
    from sane.analyses.reproducibility import compare_snapshots

    targets = {"constant": (0, 0), "judge": (20, 19), "rival": (30, 15)}
    a, b = _suite(kit, targets), _suite(kit, targets)
    result = compare_snapshots(a, b, similarity="lexical", n_resamples=200)
    (pair,) = [p for p in result.pairs if {p.a, p.b} == {"constant", "judge"}]
    assert pair.verdict == "judge beats constant in both suites"
    assert pair.pass_rate_verdict.startswith("neither")
    assert pair.in_a.difference == pytest.approx(0.5 - 0.85)  # seen from "constant"
    target = result.targets["judge"]
    assert (target.default_score_a, target.pass_rate_a) == (0.85, 0.79)
    assert result.ranking_agreement.kendall == pytest.approx(1.0)
    scores = {n: t.default_score_a for n, t in result.targets.items()}
    rates = {n: t.pass_rate_a for n, t in result.targets.items()}
    assert sorted(scores, key=scores.get) == ["constant", "rival", "judge"]
    assert sorted(rates, key=rates.get) == ["rival", "judge", "constant"]


def test_a_target_the_ranking_test_shows_below_the_planted_constant_is_said_to_be_worse(kit):
    """Not shown better is the weaker finding; a target whose default score the sign-flip test
    shows below a scorer that never moves (it breaks what must hold and misses what must
    move) is said to be worse than one, first in its headline and under every ranking."""
    from pathlib import Path

    from sane.reporting import SHOWN_WORSE, planted_notes
    from sane.scorers.null_scorers import CONSTANT, null_targets
    from sane.scorers.suite_targets import frozen

    snapshot = _suite(kit, {CONSTANT: (0, 0), "judge": (20, 19), "flat": (10, 2),
                            "inverted": (60, 0)})  # fmt: skip
    planted = [frozen(c, Path("."), "planted") for c in null_targets() if c.name == CONSTANT]
    report = build_report(snapshot.model_copy(update={"targets": planted}))
    assert report.planted_targets.not_shown_better == ["flat", "inverted"]
    # 0.125 against 0.5; "flat" (0.4875) is not separated from the constant either way
    assert report.planted_targets.shown_worse == ["inverted"]
    headlines = {t.target: t.headline for t in report.findings.targets}
    assert headlines["inverted"].startswith(f"inverted: {SHOWN_WORSE} ({CONSTANT}).")
    assert headlines["flat"].startswith("flat: not shown better")
    assert any(line.startswith(SHOWN_WORSE) for line in planted_notes(report.planted_targets))
    assert SHOWN_WORSE in render_markdown(report)
