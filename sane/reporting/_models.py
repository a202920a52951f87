"""The report's records: what `sane report --format json` prints and the markdown renders.

They are pydantic models so the JSON contract (docs/reference.md, "The JSON report") is
written down in one place and checked on construction; every optional number is ``None``
when it is undefined (no judged case, no common target), never a default 0.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from sane._record import Record
from sane.inflation_record import SearchResult
from sane.qualification_record import QualificationStatus
from sane.records import Transcript
from sane.reporting._comparison import ComparisonSection
from sane.reporting._findings import Findings
from sane.reporting._health import TargetHealth
from sane.reporting._planted import PlantedTargets
from sane.reporting._tolerance import ToleranceSensitivity
from sane.stats import (
    BalancedScore,
    ConfigSensitivity,
    LabelAgreement,
    OrderingStats,
    PairedComparison,
    PairedTest,
    RankCorrelation,
    RankingReliability,
    RequirementProfile,
    RunVariability,
    ScoreComparison,
    ThresholdRow,
)


class SuiteInfo(Record):
    scorer: str
    criterion: str
    model: str
    oracle_models: list[str]
    votes: int
    cases_per_recipe: int
    tau: int
    generator: str
    seed: int
    created: str


class ControlRate(Record):
    """One side of the panel's control record: items, wrong answers, rate, Wilson interval."""

    items: int = 0
    wrong: int = 0
    rate: float | None = None
    ci: tuple[float, float] | None = None


class Controls(Record):
    """How the panel did on the suite's planted controls (sane.panel.controls).

    ``false_accept``: negative controls (mirror pairs both accepted, no-op cases and decoy
    instructions accepted); ``false_reject``: positive controls (edits made by code exactly
    as instructed) not accepted; ``order_inconsistent``: order-checked direction votes whose
    answer changed when the texts' roles were exchanged. ``failed`` when any rate is over
    its limit: the suite's faults are then not evidence. ``by_kind`` maps a kind to
    (items, wrong).
    """

    false_accept: ControlRate
    false_reject: ControlRate
    by_kind: dict[str, tuple[int, int]]
    max_false_accept: float
    max_false_reject: float
    order_inconsistent: ControlRate = ControlRate()
    max_order_inconsistent: float = 0.5
    failed: bool
    summary: str


class Funnel(Record):
    """Validity accounting, nested: joint_valid <= applicable <= realized <= cases.

    ``applicable_cases`` counts cases realized AND applicable; ``joint_valid_cases`` adds
    the recipe's alignment. ``unresolved`` counts panel decisions that could not be
    resolved per question (they count as invalid).
    """

    candidate_recipes: int
    aligned_recipes: int
    cases: int
    realized_cases: int
    applicable_cases: int
    joint_valid_cases: int
    validated_families: int
    fault_detecting_families: int
    tau: int
    case_generation_errors: int = 0
    # Sequential generation (the default) does not write the planned cases of a family
    # once it cannot reach tau, or (with --stop-at-tau) once it has reached it.
    skipped_cases: int = 0
    families_stopped: dict[str, int] = Field(default_factory=dict)
    unresolved: dict[str, int] = Field(default_factory=dict)
    # Hits per validity guard (sane.validators.guards): recipes repaired (requirement_refiled,
    # unused_roles_dropped) or rejected (recipe_no_op, recipe_duplicate) and cases rejected
    # (case_no_op) in code, whatever the panel said.
    guards: dict[str, int] = Field(default_factory=dict)
    controls: Controls | None = None
    # whether the oracle was shown good enough for the suite's panel (sane.qualification)
    qualification: QualificationStatus | None = None


class GroupSummary(Record):
    """Verdict counts of one slice of a target's cases.

    ``cases`` counts every executed case (pass, fault or error); ``pass_rate`` is
    ``passes / (passes + faults)`` — errors are neither — and ``None`` without any.
    ``pass_rate_ci`` is the Wilson score interval of that rate; ``pass_rate_bootstrap_ci``
    the percentile bootstrap interval over the judged cases (SANE section 5.3).
    """

    pass_rate: float | None = None
    pass_rate_ci: tuple[float, float] | None = None
    pass_rate_bootstrap_ci: tuple[float, float] | None = None
    cases: int = 0
    passes: int = 0
    faults: int = 0
    errors: int = 0


class CapabilitySummary(GroupSummary):
    name: str
    requirement: str


class FamilySummary(GroupSummary):
    name: str
    requirement: str
    capability_id: str
    relation: str


class TargetSummary(Record):
    """One target's results over the validated suite.

    ``cases_run`` counts executed cases including errors; ``fault_detecting_families``
    counts validated families with at least one fault for this target; ``stability`` and
    ``sensitivity`` follow the behavioral-correctness paper (section 3.4), and so does
    ``profile`` (mean normalised score change per recipe and per requirement).
    ``paired_tests`` (scoring-rules paper, section 3) covers pair-relation recipes,
    ``ordering`` (CAP paper, section 6.2) ordered-series recipes, and
    ``repeat_variability`` (behavioral-correctness paper, section 3.6) needs >= 2 repeats.
    ``config_group`` is the spec target's ``config_group`` (configuration sensitivity).
    ``definition_sha256`` identifies the target definition the suite holds (config, rubric
    text, python module) and ``rubric_sha256`` its judge rubric's text; both ``None`` for a
    suite written before definitions were stored.
    """

    pass_rate: float | None = None
    pass_rate_ci: tuple[float, float] | None = None
    pass_rate_bootstrap_ci: tuple[float, float] | None = None
    cases_run: int = 0
    passes: int = 0
    faults: int = 0
    errors: int = 0
    fault_detecting_families: int = 0
    tolerance: float | None = None
    stability: float | None = None
    stability_cases: int = 0
    sensitivity: float | None = None
    sensitivity_cases: int = 0
    by_requirement: dict[str, GroupSummary] = Field(default_factory=dict)
    by_capability: dict[str, CapabilitySummary] = Field(default_factory=dict)
    by_family: dict[str, FamilySummary] = Field(default_factory=dict)
    config_group: str | None = None
    definition_sha256: str | None = None
    rubric_sha256: str | None = None
    profile: RequirementProfile = Field(default_factory=RequirementProfile)
    paired_tests: dict[str, PairedTest] = Field(default_factory=dict)
    ordering: dict[str, OrderingStats] = Field(default_factory=dict)
    repeat_variability: dict[str, RunVariability] = Field(default_factory=dict)


class _Position(Record):
    """What every ranking's line holds: a rank that claims no more than the cases show.

    ``rank`` is 1 + the number of targets significantly better by the ranking's test, so
    targets no test separates share a rank and ``tied`` says so; None for a target not ranked.
    ``ci`` is the pass rate's percentile bootstrap interval over the judged cases, or the
    Wilson interval where the bootstrap collapses to a point (0/n, n/n): ``ci_method`` says
    which. ``cases`` counts the judged cases (passes + faults).
    """

    target: str
    pass_rate: float | None
    rank: int | None
    tied: bool = False
    ci: tuple[float, float] | None = None
    ci_method: str | None = None
    cases: int = 0
    # case executions in error (apart from `cases`), and why a target is listed unranked
    # or flagged (sane.reporting._health): "not ranked: 15 of 18 ...", "scores barely move"
    errors: int = 0
    note: str | None = None


class RankingEntry(_Position):
    """A position in the suite's ranking, ordered by the default score (`Report.ranked_by`).

    ``rank`` is 1 + the number of targets whose default score is significantly higher (the
    paired sign-flip test on the cases both judged, within the default score's weighting,
    Holm-adjusted over the ranking's pairs: sane.stats._balanced_comparison). A target without
    a default score (no discriminating case judged) ranks after every target with one, by pass
    rate (``ranked_by`` "pass_rate", and ``note`` says why); one that is not ranked (too many
    errors) has no rank. ``pass_rate_rank`` is the rank by pass rate alone (McNemar's exact
    test, Holm-adjusted: 1 + the number of targets that pass significantly more often), shown
    beside with the pass rate and its interval.
    """

    default_score: float | None = None
    default_score_ci: tuple[float, float] | None = None
    discriminating_cases: int = 0
    ranked_by: str | None = None  # "default_score", "pass_rate", or None: not ranked
    pass_rate_rank: int | None = None
    pass_rate_tied: bool = False


class SliceRankingEntry(_Position):
    """A position in a per-requirement or per-capability ranking: by pass rate, ``rank`` 1 +
    the number of targets that pass significantly more often on the slice's cases (McNemar's
    exact test on the cases both judged, Holm-adjusted over the slice's pairs; Wilson
    intervals that do not overlap where two targets share no case). A slice keeps the pass
    rate: most hold one class of case only (an invariance requirement has no case a scorer
    that never moves fails, so no default score there)."""


class HumanAlignment(RankCorrelation):
    """Pass-rate ranking vs. a human benchmark (SANE section 5.3); ``default_score``: the same
    for the default scores, the score the ranking is ordered by."""

    human_higher_is_better: bool = True
    only_in_suite: list[str] = Field(default_factory=list)
    only_in_human: list[str] = Field(default_factory=list)
    human: dict[str, float] = Field(default_factory=dict)
    human_source: str | None = None
    per_target: dict[str, LabelAgreement] = Field(default_factory=dict)
    default_score: RankCorrelation | None = None
    # the labels' own split-half reliability of the targets' order (computed benchmarks)
    reliability: RankingReliability | None = None


class FaultEvidence(Record):
    """A violated relation with everything needed to judge it by eye."""

    target: str
    case_id: str
    recipe_id: str
    recipe_name: str
    requirement: str
    capability_id: str
    capability: str
    relation: str
    relation_spec: dict[str, Any]
    tolerance: float
    example_index: int
    context: dict[str, str] = Field(default_factory=dict)  # the example's other fields
    variants: dict[str, str]
    scores: dict[str, list[float | None]]
    normalised: dict[str, list[float | None]]
    detail: str
    # the largest gap between the variants' mean normalised scores: how far apart the
    # judge put texts the relation ties together, so the worst cases can come first
    gap: float | None = None
    # per role, the keys of the judge calls behind its scores (Report.transcripts holds them)
    transcripts: dict[str, list[str]] = Field(default_factory=dict)


class ExecutionError(Record):
    target: str
    case_id: str
    recipe_id: str
    message: str


class ErrorSummary(Record):
    """Errors kept apart from verdicts: per pipeline stage (logged) and per target (executions).

    ``by_stage`` counts the suite's logged errors; ``by_target`` counts, per target, the
    execution records whose verdict is ``error`` plus logged errors that name the target
    (e.g. a failed tolerance measurement).
    """

    total: int = 0
    by_stage: dict[str, int] = Field(default_factory=dict)
    by_target: dict[str, int] = Field(default_factory=dict)
    items: list[dict[str, str]] = Field(default_factory=list)
    execution: list[ExecutionError] = Field(default_factory=list)


class CallTotals(Record):
    total: int = 0
    cached: int = 0
    errors: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens: int = 0
    cost: float = 0.0
    latency_s: float = 0.0
    mean_latency_s: float | None = None


class CallSummary(CallTotals):
    """LLM usage; ``by_task`` groups calls by the task name's prefix (before ``:``/``.``/``/``)."""

    by_task: dict[str, CallTotals] = Field(default_factory=dict)


class ReviewOverride(Record):
    """A decision a reviewer made otherwise than the panel."""

    question: str
    subject_id: str
    panel: str  # "none": the panel never decided it
    human: str


class ReviewSummary(Record):
    """Reviewers' decisions in force (`sane review apply`): how many per question, those that
    differ from the panel's, and the validated-family count the panel alone would give."""

    applied: dict[str, int]
    changed: list[ReviewOverride]
    validated_by_panel: int
    validated: int
    # the suite's own questions (controls apart) and how many a person decided; the
    # planted controls a person answered, and how many right
    questions: int = 0
    decided_by_person: int = 0
    controls_answered: int = 0
    controls_right: int = 0

    @property
    def complete(self) -> bool:
        """A person decided every question, and answered controls, every one right."""
        return (
            self.decided_by_person == self.questions > 0
            and self.controls_answered > 0
            and self.controls_right == self.controls_answered
        )

    @property
    def summary(self) -> str:
        controls = (
            f"controls {self.controls_right}/{self.controls_answered} right"
            if self.controls_answered
            else "no control answered"
        )
        return (
            f"Validity decided by a person on {self.decided_by_person} of {self.questions} "
            f"question(s); {controls}."
        )


class Report(Record):
    """The whole report. ``model_dump(mode="json")`` is the `sane report` JSON document."""

    suite: SuiteInfo
    validity: Funnel
    # the headline (sane.reporting._findings): what each target fails, and whether it is
    # evidence; every format leads with it, after the validity verdict
    findings: Findings | None = None
    # a comparative suite's audit of its judges (sane.reporting._comparison): oracle-free,
    # findings first; absent from a pointwise suite's report (see `_absent_when_none`)
    comparison_audit: ComparisonSection | None = None
    targets: dict[str, TargetSummary]
    ranking: list[RankingEntry]
    # which score orders `ranking` ("default_score", or "pass_rate" where no target has a
    # default score; None with nothing ranked), and that in one line every format shows
    ranked_by: str | None = None
    ranking_order: str | None = None
    # every pair of ranked targets on the cases both judged: McNemar on the pass rates
    # (sane.stats._comparison), and the sign-flip test on the default scores that the ranks
    # rest on (sane.stats._balanced_comparison)
    comparisons: list[PairedComparison] = Field(default_factory=list)
    default_score_comparisons: list[ScoreComparison] = Field(default_factory=list)
    span: float | None = None
    ranking_by_requirement: dict[str, list[SliceRankingEntry]] = Field(default_factory=dict)
    ranking_by_capability: dict[str, list[SliceRankingEntry]] = Field(default_factory=dict)
    # the null scorers every execution runs beside the targets (sane.reporting._planted)
    planted_targets: PlantedTargets | None = None
    # each target's default score: balanced accuracy over the cases a constant fails and passes
    default_scores: dict[str, BalancedScore] = Field(default_factory=dict)
    span_by_requirement: dict[str, float | None] = Field(default_factory=dict)
    human_alignment: HumanAlignment | None = None
    threshold_sensitivity: list[ThresholdRow] = Field(default_factory=list)
    tolerance_sensitivity: ToleranceSensitivity | None = None
    configuration_sensitivity: dict[str, ConfigSensitivity] = Field(default_factory=dict)
    faults: list[FaultEvidence] = Field(default_factory=list)
    errors: ErrorSummary = Field(default_factory=ErrorSummary)
    calls: CallSummary = Field(default_factory=CallSummary)
    not_executed: list[str] = Field(default_factory=list)
    review: ReviewSummary | None = None  # None: no reviewer's decision is in force
    # per target, its errors and score movement (sane.reporting._health)
    health: dict[str, TargetHealth] = Field(default_factory=dict)
    # the judge calls behind the faults, by key: the rendered prompt and the raw reply
    transcripts: dict[str, Transcript] = Field(default_factory=dict)
    # each searched target's score-inflation search (sane.manipulations): needs no oracle,
    # so it is evidence whatever the panel did on its controls
    inflation: list[SearchResult] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    # what other packages' report sections built, by name (sane.reporting.sections)
    sections: dict[str, Any] = Field(default_factory=dict)

    @model_serializer(mode="wrap")
    def _absent_when_none(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """A section only some suites have is left out where it is None, not written as
        null: a pointwise suite's JSON report stays byte for byte what it was before
        comparative judges were."""
        data = handler(self)
        for name in ABSENT_WHEN_NONE:
            if data.get(name, ...) is None:
                del data[name]
        return data


ABSENT_WHEN_NONE = ("comparison_audit",)
