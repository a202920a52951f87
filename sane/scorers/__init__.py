"""Target adapters and built-in metrics. Their modules register them (entry-point groups
`sane.target_kinds` and `sane.metrics`, read on the first look-up; see sane._registry)."""

from sane.scorers.base import (
    BUILTIN_METRICS,
    TARGET_KINDS,
    BatchTarget,
    BuildContext,
    Target,
    build_target,
    register_kind,
    register_metric,
)
from sane.scorers.execute import (
    ToleranceEstimate,
    estimate_tolerance,
    normalise,
    run_case,
    score_variants,
)

__all__ = [
    "BUILTIN_METRICS",
    "TARGET_KINDS",
    "BatchTarget",
    "BuildContext",
    "Target",
    "ToleranceEstimate",
    "build_target",
    "estimate_tolerance",
    "normalise",
    "register_kind",
    "register_metric",
    "run_case",
    "score_variants",
]
