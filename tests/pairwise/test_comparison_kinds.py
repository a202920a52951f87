"""The comparison kinds' statistics on planted preferences: a bias finding needs its t
interval (the three bias checks sharing a 5% error) clear of zero, and repeatability
compares each pair's first verdict with two more."""

from __future__ import annotations

import asyncio
import random

import pytest

from sane.pairwise import AuditSettings, audit_target

EXAMPLES = [
    {"q": f"question {i}", "a": f"answer {i} " + "word " * (i % 4), "b": f"other {i}"}
    for i in range(12)
]


def _audit(score, *, deterministic: bool = True):
    return asyncio.run(audit_target(score, EXAMPLES, ("a", "b"), deterministic=deterministic))


def test_a_weak_noisy_lean_is_no_finding_and_a_clear_one_is() -> None:
    """Noise with no bias: its mean wanders around zero and the t interval keeps it there;
    a steady lean of 0.3 toward the first position is found."""
    rng = random.Random(1)

    async def noisy(record: dict[str, str], repeat: int) -> float:
        return rng.choice([-1.0, 0.0, 1.0])

    async def leaning(record: dict[str, str], repeat: int) -> float:
        return 0.3

    position = _audit(noisy, deterministic=False).check("swap_symmetry")
    assert position is not None and position.value is not None and abs(position.value) < 0.3
    assert "prefers position" not in (position.finding or "")  # flips, yes; a lean, no
    lean = _audit(leaning).check("swap_symmetry")
    assert lean is not None and lean.finding and "prefers position A" in lean.finding
    assert lean.ci == pytest.approx((0.3, 0.3))  # every example the same: a point


def test_repeatability_compares_the_first_verdict_with_two_more() -> None:
    async def flips_on_repeats(record: dict[str, str], repeat: int) -> float:
        return 1.0 if repeat == 0 else -1.0

    check = _audit(flips_on_repeats, deterministic=False).check("repeatability")
    assert check is not None and check.n == 2 * len(EXAMPLES) and check.value == 1.0
    assert check.finding and "changes its verdict when asked again" in check.finding
    skipped = _audit(flips_on_repeats).check("repeatability")
    assert skipped is not None and skipped.skipped == "a deterministic target"


def test_the_bias_interval_is_wider_than_a_95_percent_one() -> None:
    from sane.pairwise.kinds import _mean_ci

    values = [0.2, -0.1, 0.4, 0.0, 0.3, 0.1, -0.2, 0.5, 0.2, 0.1, 0.0, 0.3]
    _, wide = _mean_ci(values, AuditSettings())
    _, narrow = _mean_ci(values, AuditSettings(bias_confidence=0.95))
    assert wide[0] < narrow[0] and wide[1] > narrow[1]
