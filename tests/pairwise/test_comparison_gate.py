"""`sane check` gates a comparative suite on its comparison audit: the least swap
consistency and the most audit findings of each judge; a pointwise suite given these limits
is a problem (exit 4), never a pass."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from sane.cli import app


def _check(suite: Path, *options: str) -> tuple[int, dict]:
    result = CliRunner().invoke(app, ["check", str(suite), *options, "--json"])
    return result.exit_code, json.loads(result.stdout) if result.stdout.strip() else {}


def test_swap_consistency_and_findings_gate_each_judge(comparative: Path) -> None:
    code, gate = _check(comparative, "--min-swap-consistency", "0.9")
    failed = {c["target"] for c in gate["checks"] if not c["passed"]}
    assert code == 5 and failed == {"always-a"}  # it flips every decisive verdict on swap
    code, gate = _check(comparative, "--max-comparison-findings", "0", "--target", "exact")
    assert code == 0 and [c["value"] for c in gate["checks"]] == [0.0]
    code, gate = _check(comparative, "--max-comparison-findings", "0")
    failed = {c["target"]: c["value"] for c in gate["checks"] if not c["passed"]}
    assert code == 5 and failed == {"always-a": 2.0, "longer": 1.0}


def test_a_judge_never_audited_has_no_pass(comparative: Path) -> None:
    code, gate = _check(comparative, "--min-swap-consistency", "0.5", "--target", "nobody")
    assert code == 4 and any("nobody" in p for p in gate["problems"])
