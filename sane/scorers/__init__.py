"""Target adapters and built-in metrics; importing this package registers them all."""

from sane.scorers import lexical, llm_judge, python_fn  # noqa: F401  (registration)
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

# Local-model metrics (embedded offline models; heavy libraries load on first use).
from sane.scorers import (  # noqa: F401  (registration)
    local_bertscore,
    local_embedding,
    local_entailment,
    local_likelihood,
)
