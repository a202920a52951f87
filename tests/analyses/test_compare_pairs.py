"""`sane compare A B` answers "does A still beat B?" (issue 55, item 5): per pair of targets,
each suite's paired test and a verdict, from two targets on; rank agreement only where it is
defined (three targets or more)."""

from __future__ import annotations

import io

from rich.console import Console
from suite_builders import build_suite

from sane.analyses.reproducibility import compare_snapshots, pair_verdict
from sane.cli._compare import agreement_line, comparison_tables
from sane.stats import PairedComparison
from sane.suites.store import SuiteStore


def _two_targets(path):
    store = SuiteStore(path, readonly=True)
    try:
        snapshot = store.snapshot()
    finally:
        store.close()
    kept = [e for e in snapshot.executions if e.target in {"careful", "lazy"}]
    return snapshot.model_copy(update={"executions": kept})


def test_two_targets_get_a_verdict_per_pair_and_no_undefined_rank_agreement(suite_dir, scripted):
    a = _two_targets(build_suite(suite_dir, scripted, "a.db", seed=0))
    b = _two_targets(build_suite(suite_dir, scripted, "b.db", seed=0))
    result = compare_snapshots(a, b, similarity="lexical")
    assert [(p.a, p.b) for p in result.pairs] == [("careful", "lazy")]
    pair = result.pairs[0]
    assert pair.in_a is not None and pair.in_a.cases > 0 and pair.in_b is not None
    assert pair.verdict in {
        "careful beats lazy in both suites",
        "neither careful nor lazy beats the other in either suite",
    }
    console = Console(width=320, record=True, file=io.StringIO())
    for table in comparison_tables(result):
        console.print(table)
    text = console.export_text()
    assert "Does one target still beat another?" in text and pair.verdict in text
    assert "Ranking agreement" not in text  # undefined with two targets: not a table of dashes
    assert agreement_line(result).startswith("rank agreement: not defined here")


def _pair(better_a: bool, significant: bool) -> PairedComparison:
    return PairedComparison(
        a="A", b="B", cases=20, difference=0.5 if better_a else -0.5, significant=significant
    )


def test_the_verdict_says_both_only_one_neither_or_disagree():
    yes, no, rev = _pair(True, True), _pair(True, False), _pair(False, True)
    assert pair_verdict("A", "B", yes, yes) == "A beats B in both suites"
    assert pair_verdict("A", "B", yes, no) == "A beats B only in suite A (not separated in suite B)"
    assert pair_verdict("A", "B", no, rev) == "B beats A only in suite B (not separated in suite A)"
    assert pair_verdict("A", "B", no, no) == "neither A nor B beats the other in either suite"
    assert "disagree" in pair_verdict("A", "B", yes, rev)
    assert pair_verdict("A", "B", yes, None) == "A and B share no judged case in suite B"
