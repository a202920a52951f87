"""Pydantic records for everything that crosses a boundary.

Every stage reads and writes these: the agents produce them from model output,
the store persists them, the report and the statistics consume them. Keeping
them in one module makes the suite's data model readable in one place.
"""

from __future__ import annotations

import hashlib
import math
from enum import Enum, StrEnum
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from sane._record import Record
from sane.comparison_record import ComparisonAudit
from sane.inflation_record import SearchResult
from sane.qualification_record import Qualification
from sane.relations import (  # noqa: F401 - the relation records, re-exported
    AtLevelRelation,
    CombinedRelation,
    OrderedRelation,
    PairRelation,
    Relation,
    RepeatableRelation,
    SpansRelation,
    Verdict,
    check_relation,
    relation_roles,
)
from sane.requirements import Requirement
from sane.target_kind import (  # noqa: F401 - the target records, re-exported
    AnyTargetConfig,
    Name,
    OutputContract,
    TargetConfig,
)

# -------------------------------------------------------------------------- stages


class Stage(StrEnum):
    """The stages of a run, by one name each: the workflow graph's nodes (sane.pipeline.workflow),
    the store's done-marks and error records, the progress display and the stage functions
    (sane.pipeline) all use these. Alignment runs inside each `cases` flow and tolerance
    inside `execute`, so those two name progress and errors but no node of their own."""

    capabilities = "capabilities"
    recipes = "recipes"
    alignment = "alignment"
    cases = "cases"
    case_panel = "case_panel"
    controls = "controls"
    families = "families"
    tolerance = "tolerance"
    execute = "execute"
    inflation = "inflation"
    comparison = "comparison"
    report = "report"

    @property
    def label(self) -> str:
        """How the progress display names it."""
        return self.value.replace("_", " ")


# --------------------------------------------------------------------------- spec


class SuiteTarget(Record):
    """A target as a suite holds it, frozen when it was loaded: its definition, the text of
    the rubric it reads, and hashes. Execution needs nothing else from the spec's folder, so a
    suite can be moved or mailed and still runs, and each result names the definition it
    measured (`definition_sha256`)."""

    config: AnyTargetConfig
    rubric: str | None = None  # the judge rubric's text when `config.prompt` names a file
    rubric_sha256: str | None = None
    code_sha256: str | None = None  # the module file of a python target, when it has one
    definition_sha256: str
    source: str  # the spec the definition came from, as the user named it
    added: str


def _refuse(record: Record, field: str, message: str) -> None:
    """Refuse a record's cross-field check at the field to change (`output.type`), not at
    the record as a whole: a model check's ValueError has no place, and bad input names its
    field."""
    raise ValidationError.from_exception_data(
        type(record).__name__,
        [
            InitErrorDetails(
                type=PydanticCustomError("value_error", message),
                loc=tuple(field.split(".")),
                input=getattr(record, field.split(".")[0], None),
            )
        ],
    )


class ScorerSpec(Record):
    """The scorer under test: criterion, fields, output contract, examples, targets."""

    name: Name
    criterion: str
    fields: dict[Name, str]
    scored_field: str
    output: OutputContract
    examples: str | None = None
    targets: list[AnyTargetConfig] = Field(default_factory=list)
    # A comparative scorer's two candidates (answer_a, answer_b): it judges which is better
    # for the same context, and its output is a preference for the first (`type: pairwise`).
    # Recipes edit the first (`scored_field`), so their relations are on that preference.
    compared_fields: list[Name] | None = None

    @model_validator(mode="after")
    def _scored_field_declared(self) -> ScorerSpec:
        if self.scored_field not in self.fields:
            _refuse(
                self, "scored_field",
                f"'{self.scored_field}' is not one of fields {sorted(self.fields)}",
            )  # fmt: skip
        return self

    @model_validator(mode="after")
    def _comparison_declared(self) -> ScorerSpec:
        """A comparative spec names two distinct declared fields, edits the first, and says
        its output is a preference (and a pairwise output belongs to a comparative spec).
        Each refusal names the key to change, as any other bad field of a spec."""
        compared = self.compared_fields
        if compared is None:
            if self.output.pairwise:
                _refuse(
                    self, "compared_fields",
                    "missing: a pairwise output needs compared_fields: [first, second]",
                )  # fmt: skip
            return self
        if len(compared) != 2 or compared[0] == compared[1]:
            _refuse(self, "compared_fields", "must name two different fields: [first, second]")
        unknown = [name for name in compared if name not in self.fields]
        if unknown:
            _refuse(
                self, "compared_fields",
                f"{unknown} are not among fields {sorted(self.fields)}",
            )  # fmt: skip
        if self.scored_field != compared[0]:
            _refuse(
                self, "scored_field",
                f"must be the first compared field ('{compared[0]}'): recipes edit it, and "
                "the preference is for it",
            )  # fmt: skip
        if not self.output.pairwise:
            _refuse(
                self, "output.type",
                f"a comparative spec's output must be `type: pairwise`, not {self.output.type}",
            )  # fmt: skip
        return self

    @property
    def comparative(self) -> bool:
        """It judges two candidates against each other (compared_fields), not one text."""
        return self.compared_fields is not None

    @property
    def other_field(self) -> str | None:
        """The second compared field: the candidate recipes leave as it is."""
        return self.compared_fields[1] if self.compared_fields else None


Example = dict[str, str]


# ---------------------------------------------------------------------- relations
# Every relation kind (its record, check, mirror, words) lives in sane.relations; the
# records are re-exported here so the data model reads in one place.


# ------------------------------------------------------------ capabilities, recipes


class Capability(Record):
    id: str
    name: str
    description: str
    requirement: Requirement


class Recipe(Record):
    """How to transform an input, which variants a case has, and the expected relation."""

    id: str
    capability_id: str
    requirement: Requirement
    name: str
    instruction: str
    variant_roles: list[str]
    relation: Relation
    rationale: str
    generator: str = "derived"
    transform: str | None = None
    """A registered deterministic transform (sane.edits) that writes the
    non-original variants by code instead of by the case agent; None = written by a model."""
    repairs: list[str] = Field(default_factory=list)
    """What the validity guards (sane.validators.guards) changed, as "guard: reason"."""

    @model_validator(mode="after")
    def _relation_uses_declared_roles(self) -> Recipe:
        missing = [r for r in relation_roles(self.relation) if r not in self.variant_roles]
        if missing:
            raise ValueError(f"relation reads roles {missing} not in variant_roles")
        return self


class Case(Record):
    """One instantiation of a recipe: a text per variant role, from one source example."""

    id: str
    recipe_id: str
    index: int
    example_index: int
    example: Example
    variants: dict[str, str]
    notes: str = ""
    error: str | None = None
    # the case writer's reason where the recipe does not apply to this example (no number
    # to change, no hedge to remove): the case stays unrealised, never put to the panel
    not_applicable: str | None = None


# ------------------------------------------------------------------- oracle panel


class Decision(str, Enum):
    yes = "yes"
    no = "no"
    unresolved = "unresolved"


class Question(str, Enum):
    """The three validity questions of the method."""

    alignment = "alignment"
    realization = "realization"
    applicability = "applicability"


class Vote(Record):
    subject_id: str
    question: Question
    decision: Decision
    rationale: str = ""
    model: str
    sample_index: int
    seed: int | None = None  # the vote's own sampling seed (sane.panel.oracle.vote_seed)
    raw: str = ""
    error: str | None = None
    # the keys of the model calls behind this vote (two for a contrastive ballot, more
    # after a schema repair): the suite's transcripts table holds their prompts and replies
    transcripts: list[str] = Field(default_factory=list)


class PanelDecision(Record):
    """A decision on one subject. After `sane review apply` a reviewer's label replaces the
    panel's: `decision` is then the human's, `by_human` is set and `panel_decision` keeps
    what the panel decided (its votes stay in `votes`; None: the panel never decided it, e.g.
    a case sequential decisions skipped)."""

    subject_id: str
    question: Question
    decision: Decision
    votes: list[Vote]
    by_human: bool = False
    panel_decision: Decision | None = None

    @property
    def panel(self) -> Decision | None:
        """The panel's own decision, whatever a reviewer decided (None: it never decided)."""
        return self.panel_decision if self.by_human else self.decision


class Family(Record):
    recipe_id: str
    cases: int
    realized: int
    applicable: int
    joint_valid: int
    tau: int
    validated: bool
    # Sequential generation stops a family early; `skipped` counts the planned cases that
    # were never generated and `stopped` says why (None: all planned cases were generated).
    skipped: int = 0
    stopped: Literal["could_not_reach_tau", "reached_tau"] | None = None


# -------------------------------------------------------------------- execution


class ExecutionRecord(Record):
    """A target's scores on one case, the tolerance used and the verdict or error."""

    target: str
    case_id: str
    recipe_id: str
    scores: dict[str, list[float | None]]
    normalised: dict[str, list[float | None]] = Field(default_factory=dict)
    tolerance: float | None
    verdict: Verdict
    detail: str = ""
    error: str | None = None
    # the target definition that produced this result (SuiteTarget.definition_sha256)
    definition_sha256: str | None = None
    # per role, the keys of the model calls its scores came from, in order (a judge's;
    # code makes none): the suite's transcripts table holds their prompts and replies
    transcripts: dict[str, list[str]] = Field(default_factory=dict)

    @field_validator("scores", "normalised")
    @classmethod
    def _no_nan(cls, value: dict[str, list[float | None]]) -> dict[str, list[float | None]]:
        for role, values in value.items():
            for v in values:
                if v is not None and not math.isfinite(v):
                    raise ValueError(f"non-finite score for role {role}; record an error")
        return value

    def checked_under(
        self, relation: Relation, tolerance: float, higher_is_better: bool
    ) -> ExecutionRecord:
        """This result with ``relation`` checked on its stored normalised scores under
        ``tolerance``: what a run under that tolerance gives, with no call (`sane execute`
        after scoring, again under another tolerance bar, and the report's
        `tolerance_sensitivity`)."""
        result = check_relation(relation, self.normalised, tolerance, higher_is_better)
        failed = result.verdict is Verdict.error
        return self.model_copy(
            update={
                "tolerance": tolerance,
                "verdict": result.verdict,
                "detail": result.detail,
                "error": result.detail if failed else None,
            }
        )


class CallRecord(Record):
    """One LLM call as the LLM layer saw it, for cost and latency accounting."""

    key: str
    task: str
    model: str
    sample_index: int = 0
    cached: bool
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    latency_s: float = 0.0
    error: str | None = None


class Transcript(Record):
    """One model call: its key (the call's cache key), the prompt as sent (messages rendered
    as text) and the reply. Kept in the suite (sane.llm._transcripts says why)."""

    key: str
    model: str
    task: str
    prompt: str
    reply: str
    truncated: bool = False  # a side was cut (sane.llm._transcripts.TEXT_CAP)

    @property
    def prompt_sha256(self) -> str:
        return hashlib.sha256(self.prompt.encode("utf-8")).hexdigest()


class RunConfig(Record):
    """The generating configuration, stored with the suite for provenance."""

    model: str
    oracle_models: list[str]
    votes: int = 3
    cases: int = 10
    tau: int | None = None
    seed: int = 0
    temperature: float = 0.7
    oracle_temperature: float = 0.7
    generator: str = "derived"
    max_capabilities: int = 6
    recipes_per_capability: int = 2
    # exhaustive: ask every vote and generate every case (same outcomes, more calls);
    # stop_at_tau: budget mode, a family stops as soon as it has tau joint-valid cases.
    exhaustive: bool = False
    stop_at_tau: bool = False
    # the panel kind (sane.panel.kinds: contrastive, plain, blind, or another package's),
    # checked against the registered kinds where a run is configured (sane.pipeline.run_config)
    panel: str = "contrastive"
    # each vote writes one short sentence before its answer; off, the answer alone (fewer
    # generated tokens: on the embedded model a rationale is most of a vote's output)
    vote_rationale: bool = True

    @property
    def threshold(self) -> int:
        return self.tau if self.tau is not None else self.cases // 2 + 1

    @model_validator(mode="before")
    @classmethod
    def _retired_fields(cls, data: Any) -> Any:
        """Earlier suites stored `concurrency` here, which no stage read (the
        LLM client's own setting is what limits calls): it is dropped on load."""
        if isinstance(data, dict) and "concurrency" in data:
            data = {key: value for key, value in data.items() if key != "concurrency"}
        return data


def is_validated(joint_valid: int, tau: int) -> bool:
    """A family is validated when at least tau of its cases are joint-valid. The one place
    the family rule lives (the family stage, the report's recount and the threshold
    sensitivity with other taus all ask it), beside the threshold it is asked with."""
    return joint_valid >= tau


class ExecuteConfig(Record):
    """How a suite's validated families are run against its targets. Not stored with the
    suite: each `sane execute` says it (`sane.pipeline.run_config.execute_config` builds and checks it
    for the CLI, the Python API and baselines)."""

    targets: list[str] | None = None  # by name; None: every target the suite holds
    repeats: int = Field(default=1, ge=1)  # scores per variant
    timeout_s: float = Field(default=60.0, gt=0)  # per scorer call, unless a target sets one
    # the least tolerance a check uses, on the 0-1 scale, and the share of the target's own
    # spread of scores over the examples it is at least (sane.relations.tolerance_for)
    tolerance_floor: float = Field(default=0.0, ge=0)
    tolerance_spread: float = Field(default=0.1, ge=0)
    # the score-inflation search's target calls per target (sane.manipulations); 0: none (the
    # default: up to this many more judge calls, which an API judge is paid for)
    max_target_calls: int = Field(default=0, ge=0)
    # a comparative spec's targets: the suite's examples their comparison audit asks about
    # (sane.pairwise: swap, identity, padding, ...: 17 calls an example at most); 0: none
    comparison_examples: int = Field(default=12, ge=0)


class SuiteSnapshot(Record):
    """Everything a report needs, loaded from a suite store in one piece."""

    spec: ScorerSpec
    config: RunConfig
    created: str
    examples: list[Example]
    capabilities: list[Capability]
    recipes: list[Recipe]
    alignment: dict[str, PanelDecision]
    cases: list[Case]
    realization: dict[str, PanelDecision]
    applicability: dict[str, PanelDecision]
    families: list[Family]
    targets: list[SuiteTarget] = Field(default_factory=list)
    tolerances: dict[str, float] = Field(default_factory=dict)
    # each target's measured repeat-run noise (normalised std) and the floor its tolerance
    # was set under (sane.relations.tolerance_for), beside its tolerance
    noise: dict[str, float] = Field(default_factory=dict)
    tolerance_floors: dict[str, float] = Field(default_factory=dict)
    # each target's spread of normalised scores over the sampled examples and the share of it
    # its tolerance was set to at least (both absent in a suite executed before they counted)
    spreads: dict[str, float] = Field(default_factory=dict)
    spread_shares: dict[str, float] = Field(default_factory=dict)
    # each target's median normalised score over those examples (absent where not measured):
    # the level at which its level cases are classed (sane.relations.discriminates)
    levels: dict[str, float] = Field(default_factory=dict)
    executions: list[ExecutionRecord] = Field(default_factory=list)
    # the oracle models' qualifications (sane.qualification), one per model qualified
    qualifications: list[Qualification] = Field(default_factory=list)
    # each target's score-inflation search (sane.manipulations): oracle-free evidence
    inflation: list[SearchResult] = Field(default_factory=list)
    # each comparative target's audit (sane.pairwise): oracle-free, a comparative spec's only
    comparisons: list[ComparisonAudit] = Field(default_factory=list)
    calls: list[CallRecord] = Field(default_factory=list)
    errors: list[dict[str, str]] = Field(default_factory=list)
    # the transcripts behind the faults (the report shows them), by key, and how many
    # transcripts the suite's size cap left out
    transcripts: dict[str, Transcript] = Field(default_factory=dict)
    transcripts_dropped: int = 0
