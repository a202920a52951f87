"""Target kinds and built-in metrics. Their modules register them (entry-point groups
`sane.target_kinds` and `sane.metrics`, read on the first look-up; see sane._registry); what
a target kind is lives in sane.target_kind, below the records that parse a spec's targets."""

from sane.scorers.base import (
    BUILTIN_METRICS,
    BatchTarget,
    BuildContext,
    BuiltinConfig,
    Target,
    build_target,
    register_metric,
)
from sane.scorers.execute import (
    ToleranceEstimate,
    estimate_tolerance,
    normalise,
    run_case,
    score_variants,
)
from sane.target_kind import (
    TARGET_KINDS,
    Frozen,
    TargetConfig,
    TargetKind,
    register_target_kind,
    target_config,
)

__all__ = [
    "BUILTIN_METRICS",
    "TARGET_KINDS",
    "BatchTarget",
    "BuildContext",
    "BuiltinConfig",
    "Frozen",
    "Target",
    "TargetConfig",
    "TargetKind",
    "ToleranceEstimate",
    "build_target",
    "estimate_tolerance",
    "normalise",
    "register_metric",
    "register_target_kind",
    "run_case",
    "score_variants",
    "target_config",
]
