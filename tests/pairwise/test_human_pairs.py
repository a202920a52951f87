"""`sane rank --human-data` on a comparative suite: the file's rows are pairs (context,
both candidates, the humans' verdict), and each target's agreement with them is its accuracy
on the pairs the humans decided (Wilson interval), its ties there and Cohen's kappa, printed
and in the JSON; a bad verdict is one line naming the file, the row and the field."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sane.cli import app

PAIRS = """source,first,second,verdict
The park opened.,The park opened.,The park opened UNSUPPORTED.,A
The park opened.,The park opened UNSUPPORTED.,The park opened.,b
Rain fell.,Rain fell.,Rain fell on Monday in town.,tie
Li retired.,Li retired to the coast UNSUPPORTED now.,Li retired.,-1
Rain fell.,Rain fell today.,Rain fell now.,+1
"""
# By hand, per row (humans: A, B, tie, B, A; the last four rows decided):
#   always-a  A A A A A   -> 2 of 4 right, no tie; kappa (0.4 - 0.4) / 0.6 = 0
#   longer    B A B A A   -> 1 of 4 right (the last); p_o 0.2, p_e 3/5*2/5 + 2/5*2/5 = 0.4,
#                            kappa -1/3
#   exact     A B A B tie -> 3 of 4 right, a tie on the last (one unsupported word each);
#                            p_o 0.6, p_e 4/25 + 4/25 + 1/25 = 0.36, kappa 0.375
EXPECTED = {
    "always-a": (2, 0, 0.0),
    "longer": (1, 0, -1 / 3),
    "exact": (3, 1, 0.375),
}


def _wilson(hits: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def _rank(suite: Path, data: Path, *extra: str) -> object:
    return CliRunner().invoke(app, [
        "rank", str(suite), "--trust-suite-code", "--human-data", str(data),
        "--label-field", "verdict", "--field", "summary=first", "--field", "rival=second",
        "--cache", str(suite.parent / "cache.db"), *extra,
    ])  # fmt: skip


def test_each_targets_pairwise_agreement_matches_the_hand_computation(comparative: Path) -> None:
    data = comparative.parent / "pairs.csv"
    data.write_text(PAIRS)
    result = _rank(comparative, data, "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    agreement = payload["comparison_audit"]["pairwise_agreement"]
    assert set(agreement) == set(EXPECTED)
    for name, (hits, ties, kappa) in EXPECTED.items():
        got = agreement[name]
        assert (got["pairs"], got["decided"], got["judge_ties"]) == (5, 4, ties), name
        assert (got["accuracy"]["hits"], got["accuracy"]["n"]) == (hits, 4), name
        assert got["accuracy"]["value"] == hits / 4
        assert got["accuracy"]["ci"] == pytest.approx(_wilson(hits, 4)), name
        assert got["kappa"] == pytest.approx(kappa), name
    human = payload["human_alignment"]
    assert human["human"] == {name: hits / 4 for name, (hits, _, _) in EXPECTED.items()}
    assert human["human_source"].endswith("pairs.csv:verdict (pairwise accuracy)")

    printed = _rank(comparative, data)
    assert printed.exit_code == 0, printed.output
    table = printed.stdout.split("Against human pairwise verdicts")[1]
    assert "0.750 (3/4)" in table and "0.375" in table and "-0.333" in table


def test_a_bad_verdict_is_one_line_naming_the_row(comparative: Path) -> None:
    data = comparative.parent / "pairs.csv"
    data.write_text(PAIRS.replace("The park opened.,b", "The park opened.,C"))
    result = _rank(comparative, data)
    assert result.exit_code == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert "pairs.csv" in lines[0] and "record 2.verdict" in lines[0]
    assert "not A, B or tie" in lines[0]


def test_binary_labels_are_refused_for_pairs(comparative: Path) -> None:
    data = comparative.parent / "pairs.csv"
    data.write_text(PAIRS)
    result = _rank(comparative, data, "--binary")
    assert result.exit_code == 2 and "--binary" in result.stderr
