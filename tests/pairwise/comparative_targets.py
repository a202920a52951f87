"""Planted comparative judges for the pairwise tests (imported by a spec's `ref`): each
returns the preference for the first candidate (`summary`) over the second (`rival`) on
[-1, 1], and counts its calls so a test can tell a rerun asked nothing."""

from __future__ import annotations

import re

CALLS: list[str] = []


def always_a(record: dict[str, str]) -> float:
    """Position bias: the first candidate wins, whatever it is (itself included)."""
    CALLS.append("always_a")
    return 1.0


def longer(record: dict[str, str]) -> float:
    """Verbosity bias: the longer candidate wins, by any margin."""
    CALLS.append("longer")
    a, b = len(record["summary"]), len(record["rival"])
    return 0.0 if a == b else (1.0 if a > b else -1.0)


def _unsupported(record: dict[str, str], side: str) -> int:
    """Words of a candidate its source does not hold (the scripted cases mark a claim so)."""
    source = set(re.findall(r"\w+", record["source"].lower()))
    return sum(word not in source for word in re.findall(r"\w+", record[side].lower()))


def exact(record: dict[str, str]) -> float:
    """Symmetric and exact: the candidate with fewer unsupported words wins; equal, a tie."""
    CALLS.append("exact")
    a, b = _unsupported(record, "summary"), _unsupported(record, "rival")
    return 0.0 if a == b else (1.0 if a < b else -1.0)


def flaky(record: dict[str, str]) -> float:
    """Exact, but it fails whenever a candidate praises itself: those calls are errors."""
    if "excellent" in record["summary"] or "excellent" in record["rival"]:
        raise RuntimeError("judge crashed on praise")
    return exact(record)


def broken(record: dict[str, str]) -> float:
    raise RuntimeError("judge crashed")
