"""Python targets that behave on the original text and misbehave on perturbed variants.

Imported through spec refs (`faulty_targets:NAME`) by the scorer-fault test, so the
tolerance measurement (on originals) works and every case hits the fault.
"""

from __future__ import annotations

import math
import time

HANG_S = 6.0  # well past the test's timeout: the call is abandoned, the thread a daemon


def _perturbed(record: dict[str, str]) -> bool:
    return "UNSUPPORTED" in record["summary"]


def raises(record: dict[str, str]) -> float:
    if _perturbed(record):
        raise RuntimeError("scorer crashed")
    return 5.0


def hangs(record: dict[str, str]) -> float:
    if _perturbed(record):
        time.sleep(HANG_S)
    return 5.0


def returns_nan(record: dict[str, str]) -> float:
    return math.nan if _perturbed(record) else 5.0


def returns_inf(record: dict[str, str]) -> float:
    return math.inf if _perturbed(record) else 5.0


def returns_string(record: dict[str, str]) -> object:
    return "2" if _perturbed(record) else 5.0


def out_of_range(record: dict[str, str]) -> float:
    return 7.5 if _perturbed(record) else 5.0
