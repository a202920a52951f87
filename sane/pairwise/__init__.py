"""Comparative judges' own checks (swap symmetry, identity, invariance, verbosity and
self-praise against placebos, transitivity, repeatability): the comparison kinds and the
oracle-free audit that runs them on a target."""

from sane.pairwise._kind import (
    COMPARISON_KINDS,
    AuditSettings,
    ComparisonKind,
    register_comparison,
)
from sane.pairwise.audit import CallFailed, audit_target, kinds_for

COMPARISON_KINDS.fill()

__all__ = [
    "COMPARISON_KINDS",
    "AuditSettings",
    "CallFailed",
    "ComparisonKind",
    "audit_target",
    "kinds_for",
    "register_comparison",
]
