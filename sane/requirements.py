"""The six behavioral requirements a suite tests (a scorer's spec names which apply).

Its own module because both the records (a recipe's requirement) and the relation kinds
(which requirements a kind can test) need it, and the records import the kinds.
"""

from __future__ import annotations

from enum import Enum


class Requirement(str, Enum):
    """The six fixed behavioral requirements."""

    monotonicity = "monotonicity"
    subadditivity = "subadditivity"
    repeatability = "repeatability"
    robustness = "robustness"
    dynamic_range = "dynamic_range"
    calibration = "calibration"
