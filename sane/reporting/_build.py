"""Build a :class:`Report` from a :class:`SuiteSnapshot`.

The report reads what the pipeline decided and stored: the family decisions (the families
stage stores them, and `sane review apply` again after reviewers decide), the panel's
decisions per case, the execution records. It derives only what no stage stores: the funnel's
case counts, the statistics. A family the families stage has not decided yet (a generation
still under way, shown live by `sane view`) is counted from the decisions so far. Only
executions of joint-valid cases of validated families count; anything else is left out
with a warning, never silently folded in.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from statistics import fmean
from typing import Any

from sane.inflation_record import ROBUSTNESS, SearchResult
from sane.llm import SUITE_CAP
from sane.panel import controls
from sane.qualification_record import QualificationStatus
from sane.records import (
    CallRecord,
    Case,
    Decision,
    ExecutionRecord,
    Family,
    OutputContract,
    Question,
    Recipe,
    SuiteSnapshot,
    Transcript,
    Verdict,
)
from sane.reporting._comparison import build as comparison_audit
from sane.reporting._findings import Findings, build_findings
from sane.reporting._health import TargetHealth, target_health
from sane.reporting._models import (
    CallSummary,
    CallTotals,
    CapabilitySummary,
    ControlRate,
    Controls,
    ErrorSummary,
    ExecutionError,
    FamilySummary,
    FaultEvidence,
    Funnel,
    GroupSummary,
    HumanAlignment,
    RankingEntry,
    Report,
    ReviewOverride,
    ReviewSummary,
    SliceRankingEntry,
    SuiteInfo,
    TargetSummary,
)
from sane.reporting._planted import (
    CONSTANT,
    NOT_SHOWN_BETTER,
    SHOWN_WORSE,
    PlantedTargets,
    case_outcomes,
    default_scores,
    discriminating,
    planted_targets,
)
from sane.reporting._tolerance import ToleranceSensitivity, tolerance_sensitivity
from sane.reporting.formatting import (
    NO_DEFAULT_SCORE,
    ORDER_BY_DEFAULT_SCORE,
    ORDER_BY_PASS_RATE,
    ORDER_UNSCORED_AFTER,
)
from sane.reporting.sections import SECTIONS, ReportSection, register_section
from sane.stats import (
    BalancedScore,
    CaseOutcome,
    LabelAgreement,
    PairedComparison,
    PairwiseAgreement,
    RankingReliability,
    ScoreComparison,
    ThresholdRow,
    balanced_comparisons,
    comparisons,
    configuration_sensitivity,
    default_taus,
    pass_rate_bootstrap_ci,
    pass_rate_ci,
    rank_correlation,
    recipe_ordering,
    recipe_paired_tests,
    repeat_run_variability,
    requirement_profile,
    significance_ranks,
    stability_sensitivity,
    threshold_sensitivity,
)
from sane.target_kind import is_control
from sane.validators.families import (
    aligned_recipe_ids,
    count_families,
    panel_decisions,
    realized_and_applicable,
)
from sane.validators.guards import guarded_cases, recipe_rejections


@dataclass
class _Validity:
    """Everything the funnel and the execution filter need, computed once."""

    aligned: set[str]
    realized: set[str]
    applicable: set[str]
    joint_valid: set[str]
    families: dict[str, Family]  # each aligned recipe's family, as the pipeline decided it
    validated: set[str]
    warnings: list[str] = field(default_factory=list)
    guarded_recipes: dict[str, tuple[str, str]] = field(default_factory=dict)
    guarded_cases: dict[str, tuple[str, str]] = field(default_factory=dict)


def _validity(snapshot: SuiteSnapshot) -> _Validity:
    """The funnel from the decisions in force, by the rules of sane.validators.families, and
    each family as the pipeline stored it (counted here only while it is undecided)."""
    guarded_recipes = recipe_rejections(snapshot.recipes)
    guarded = guarded_cases(snapshot.recipes, snapshot.cases)
    aligned = aligned_recipe_ids(snapshot.recipes, snapshot.alignment, snapshot.config)
    by_recipe: dict[str, list[Case]] = {recipe.id: [] for recipe in snapshot.recipes}
    warnings: list[str] = []
    for case in snapshot.cases:
        if case.recipe_id not in by_recipe:
            warnings.append(f"case {case.id} belongs to unknown recipe {case.recipe_id}")
        by_recipe.setdefault(case.recipe_id, []).append(case)
    real, appl = realized_and_applicable(
        snapshot.cases, snapshot.realization, snapshot.applicability, guarded
    )
    realized, applicable = {c.id for c in real}, {c.id for c in appl}
    joint_valid = {c.id for c in snapshot.cases if c.id in applicable and c.recipe_id in aligned}
    families = {family.recipe_id: family for family in snapshot.families}
    undecided = [r for r in snapshot.recipes if r.id in aligned and r.id not in families]
    families |= {
        family.recipe_id: family
        for family in count_families(
            undecided, by_recipe, snapshot.realization, snapshot.applicability, snapshot.config
        )
    }
    validated = {rid for rid, family in families.items() if family.validated}
    return _Validity(
        aligned,
        realized,
        applicable,
        joint_valid,
        families,
        validated,
        warnings,
        guarded_recipes,
        guarded,
    )


def _rate(items: int, wrong: int) -> ControlRate:
    if not items:
        return ControlRate()
    return ControlRate(items=items, wrong=wrong, rate=wrong / items, ci=pass_rate_ci(wrong, items))


def _controls(snapshot: SuiteSnapshot) -> Controls | None:
    """The panel's record on the planted controls; None for a suite that has none."""
    by_kind = controls.tally(snapshot.alignment, snapshot.realization)
    order = _rate(*controls.order_checks(snapshot.alignment, snapshot.applicability))
    if not any(items for items, _ in by_kind.values()) and not order.items:
        return None

    def total(kinds: tuple[str, ...]) -> tuple[int, int]:
        return (sum(by_kind[k][0] for k in kinds), sum(by_kind[k][1] for k in kinds))

    false_accept = _rate(*total(controls.kinds(negative=True)))
    false_reject = _rate(*total(controls.kinds(negative=False)))
    limits = (
        (false_accept, controls.MAX_FALSE_ACCEPT, "it accepted {} of {} known-wrong items"),
        (false_reject, controls.MAX_FALSE_REJECT, "it rejected {} of {} known-right items"),
        (
            order,
            controls.MAX_ORDER_INCONSISTENT,
            (
                "its direction answer changed with the order of the two texts in {} of {} "
                "votes (it did not read them)"
            ),
        ),
    )
    over = [
        words.format(side.wrong, side.items)
        for side, limit, words in limits
        if side.rate is not None and side.rate > limit
    ]
    if over:
        summary = (
            "The oracle panel FAILED its controls: "
            + " and ".join(over)
            + ". This suite's validity decisions are unreliable, so its faults are not evidence."
        )
    else:
        summary = (
            f"The oracle panel passed its controls: it accepted {false_accept.wrong} of "
            f"{false_accept.items} known-wrong items and rejected {false_reject.wrong} of "
            f"{false_reject.items} known-right ones"
            + (
                f"; its direction answer changed with the order of the texts in {order.wrong} "
                f"of {order.items} votes."
                if order.items
                else "."
            )
        )
    return Controls(
        false_accept=false_accept,
        false_reject=false_reject,
        by_kind=by_kind,
        max_false_accept=controls.MAX_FALSE_ACCEPT,
        max_false_reject=controls.MAX_FALSE_REJECT,
        order_inconsistent=order,
        max_order_inconsistent=controls.MAX_ORDER_INCONSISTENT,
        failed=bool(over),
        summary=summary,
    )


def _funnel(snapshot: SuiteSnapshot, validity: _Validity, fault_detecting: int) -> Funnel:
    unresolved = {
        question: sum(
            d.decision is Decision.unresolved
            for subject, d in decisions.items()
            if not controls.is_control(subject)
        )
        for question, decisions in (
            ("alignment", snapshot.alignment),
            ("realization", snapshot.realization),
            ("applicability", snapshot.applicability),
        )
    }
    return Funnel(
        candidate_recipes=len(snapshot.recipes),
        aligned_recipes=len(validity.aligned),
        cases=len(snapshot.cases),
        realized_cases=len(validity.realized),
        applicable_cases=len(validity.applicable),
        joint_valid_cases=len(validity.joint_valid),
        validated_families=len(validity.validated),
        fault_detecting_families=fault_detecting,
        tau=snapshot.config.threshold,
        case_generation_errors=sum(case.error is not None for case in snapshot.cases),
        unresolved=unresolved,
        skipped_cases=sum(family.skipped for family in snapshot.families),
        families_stopped=dict(
            Counter(family.stopped for family in snapshot.families if family.stopped)
        ),
        guards=_guard_counts(snapshot, validity),
        controls=_controls(snapshot),
        qualification=QualificationStatus.of(
            snapshot.config.panel, snapshot.config.oracle_models, snapshot.qualifications
        ),
    )


def _guard_counts(snapshot: SuiteSnapshot, validity: _Validity) -> dict[str, int]:
    """Hits per validity guard: recipe repairs, rejected recipes, rejected cases."""
    repairs = Counter(
        repair.split(":", 1)[0] for recipe in snapshot.recipes for repair in recipe.repairs
    )
    rejected = Counter(guard for guard, _ in validity.guarded_recipes.values())
    rejected.update(guard for guard, _ in validity.guarded_cases.values())
    return dict(sorted((repairs + rejected).items()))


# ------------------------------------------------------------------ executions


def _counted_executions(
    snapshot: SuiteSnapshot, validity: _Validity, cases: Mapping[str, Case]
) -> tuple[list[ExecutionRecord], list[str]]:
    """Executions of joint-valid cases of validated families, one per target x case."""
    latest: dict[tuple[str, str], ExecutionRecord] = {}
    outside = duplicates = 0
    warnings = []
    for execution in snapshot.executions:
        case = cases.get(execution.case_id)
        if case is None or case.recipe_id != execution.recipe_id:
            warnings.append(
                f"execution {execution.target} x {execution.case_id}: unknown case or "
                f"recipe mismatch ({execution.recipe_id}); left out"
            )
            continue
        if execution.case_id not in validity.joint_valid or case.recipe_id not in (
            validity.validated
        ):
            outside += 1
            continue
        key = (execution.target, execution.case_id)
        duplicates += key in latest
        latest[key] = execution
    if outside:
        warnings.append(
            f"{outside} execution(s) of cases outside the validated suite were left out"
        )
    if duplicates:
        warnings.append(f"{duplicates} repeated execution(s) of a target x case: kept the last")
    return list(latest.values()), warnings


@dataclass(frozen=True)
class _Bootstrap:
    """How bootstrap intervals are drawn: resamples and the seed (the suite's, by default)."""

    n_resamples: int = 2000
    seed: int = 0


def _group(executions: Iterable[ExecutionRecord], boot: _Bootstrap = _Bootstrap()) -> GroupSummary:
    """Verdict counts; errors are counted apart and never enter the pass rate."""
    verdicts = Counter(execution.verdict for execution in executions)
    passes, faults, errors = (verdicts[v] for v in (Verdict.passed, Verdict.fault, Verdict.error))
    judged = passes + faults
    return GroupSummary(
        pass_rate=passes / judged if judged else None,
        pass_rate_ci=pass_rate_ci(passes, judged) if judged else None,
        pass_rate_bootstrap_ci=pass_rate_bootstrap_ci(
            passes, judged, n_resamples=boot.n_resamples, seed=boot.seed
        ),
        cases=passes + faults + errors,
        passes=passes,
        faults=faults,
        errors=errors,
    )


def _robustness(result: SearchResult, boot: _Bootstrap) -> GroupSummary | None:
    """The manipulation-robustness line of one searched target: its "cases" are the
    manipulation families it was searched on, its faults those with a confirmed exploit
    (oracle-free: the relation is known without a panel). A failed search is an error
    without a rate, and one that measured no family has no line: never a perfect score."""
    if result.error is not None:
        return GroupSummary(cases=1, errors=1)
    held, inflated = result.families
    judged = held + inflated
    if not judged:
        return None
    return GroupSummary(
        pass_rate=held / judged,
        pass_rate_ci=pass_rate_ci(held, judged),
        pass_rate_bootstrap_ci=pass_rate_bootstrap_ci(
            held, judged, n_resamples=boot.n_resamples, seed=boot.seed
        ),
        cases=judged,
        passes=held,
        faults=inflated,
    )


def _by(
    executions: list[ExecutionRecord], key: Callable[[ExecutionRecord], str]
) -> dict[str, list[ExecutionRecord]]:
    groups: dict[str, list[ExecutionRecord]] = defaultdict(list)
    for execution in executions:
        groups[key(execution)].append(execution)
    return dict(sorted(groups.items()))


def _contract(snapshot: SuiteSnapshot, target: str) -> OutputContract:
    for config in snapshot.spec.targets:
        if config.name == target and config.output is not None:
            return config.output
    return snapshot.spec.output


def _tolerance(snapshot: SuiteSnapshot, target: str, runs: list[ExecutionRecord]) -> float | None:
    if target in snapshot.tolerances:
        return snapshot.tolerances[target]
    values = {execution.tolerance for execution in runs}
    return values.pop() if len(values) == 1 else None


def _config_group(snapshot: SuiteSnapshot, target: str) -> str | None:
    """The spec target's ``config_group``, if any."""
    for config in snapshot.spec.targets:
        if config.name == target:
            return config.config_group
    return None


def _target_summary(
    snapshot: SuiteSnapshot,
    target: str,
    runs: list[ExecutionRecord],
    recipes: dict[str, Recipe],
    boot: _Bootstrap = _Bootstrap(),
) -> TargetSummary:
    capabilities = {capability.id: capability for capability in snapshot.capabilities}
    contract = _contract(snapshot, target)
    by_requirement = {
        requirement: _group(group, boot)
        for requirement, group in _by(
            runs, lambda e: recipes[e.recipe_id].requirement.value
        ).items()
    }
    by_capability = {}
    for capability_id, group in _by(runs, lambda e: recipes[e.recipe_id].capability_id).items():
        capability = capabilities.get(capability_id)
        by_capability[capability_id] = CapabilitySummary(
            **_group(group, boot).model_dump(),
            name=capability.name if capability else capability_id,
            requirement=recipes[group[0].recipe_id].requirement.value,
        )
    by_family = {}
    for recipe_id, group in _by(runs, lambda e: e.recipe_id).items():
        recipe = recipes[recipe_id]
        by_family[recipe_id] = FamilySummary(
            **_group(group, boot).model_dump(),
            name=recipe.name,
            requirement=recipe.requirement.value,
            capability_id=recipe.capability_id,
            relation=recipe.relation.kind,
        )
    profile = stability_sensitivity(
        runs,
        recipes,
        contract,
        criterion_higher_is_better=snapshot.spec.output.higher_is_better,
    )
    overall = _group(runs, boot)
    held = next((t for t in snapshot.targets if t.config.name == target), None)
    return TargetSummary(
        pass_rate=overall.pass_rate,
        pass_rate_ci=overall.pass_rate_ci,
        pass_rate_bootstrap_ci=overall.pass_rate_bootstrap_ci,
        cases_run=overall.cases,
        passes=overall.passes,
        faults=overall.faults,
        errors=overall.errors,
        fault_detecting_families=sum(family.faults > 0 for family in by_family.values()),
        tolerance=_tolerance(snapshot, target, runs),
        stability=profile.stability,
        stability_cases=profile.stability_cases,
        sensitivity=profile.sensitivity,
        sensitivity_cases=profile.sensitivity_cases,
        by_requirement=by_requirement,
        by_capability=by_capability,
        by_family=by_family,
        config_group=_config_group(snapshot, target),
        definition_sha256=held.definition_sha256 if held else None,
        rubric_sha256=held.rubric_sha256 if held else None,
        profile=requirement_profile(runs, recipes, contract),
        paired_tests=recipe_paired_tests(runs, recipes, contract),
        ordering=recipe_ordering(runs, recipes, contract),
        repeat_variability=repeat_run_variability(runs, recipes, contract),
    )


def _review(snapshot: SuiteSnapshot, validity: _Validity) -> ReviewSummary | None:
    """Reviewers' decisions in force, and what the panel's own would have validated."""
    decided = {
        Question.alignment: snapshot.alignment,
        Question.realization: snapshot.realization,
        Question.applicability: snapshot.applicability,
    }
    human = {q: [d for d in ds.values() if d.by_human] for q, ds in decided.items()}
    if not any(human.values()):
        return None
    real = [d for ds in decided.values() for s, d in ds.items() if not controls.is_control(s)]
    planted = [d for d in human[Question.realization] if controls.is_control(d.subject_id)]
    # what the panel alone would have validated: counted from its decisions (no stage
    # stores this counterfactual)
    panel_only = snapshot.model_copy(
        update={q.value: panel_decisions(ds) for q, ds in decided.items()} | {"families": []}
    )
    return ReviewSummary(
        applied={q.value: len(ds) for q, ds in human.items()},
        changed=[
            ReviewOverride(
                question=q.value,
                subject_id=d.subject_id,
                panel=d.panel.value if d.panel else "none",
                human=d.decision.value,
            )
            for q, ds in human.items()
            for d in sorted(ds, key=lambda d: d.subject_id)
            if d.decision is not d.panel
        ],
        validated_by_panel=len(_validity(panel_only).validated),
        validated=len(validity.validated),
        questions=len(real),
        decided_by_person=sum(d.by_human for d in real),
        controls_answered=len(planted),
        controls_right=sum(d.decision is controls.right_answer(d.subject_id) for d in planted),
    )


# --------------------------------------------------------------------- ranking


# target -> case id (or family) -> passed: the judged verdicts a ranking pairs on
Verdicts = Mapping[str, Mapping[str, bool]]


def _passed(runs: Iterable[ExecutionRecord]) -> dict[str, dict[str, bool]]:
    """Per target, its judged cases and whether each passed (errors are not judged)."""
    passed: dict[str, dict[str, bool]] = defaultdict(dict)
    for execution in runs:
        if execution.verdict in (Verdict.passed, Verdict.fault):
            passed[execution.target][execution.case_id] = execution.verdict is Verdict.passed
    return passed


def _interval(summary: GroupSummary) -> tuple[tuple[float, float] | None, str | None]:
    """The bootstrap interval, or Wilson's where the bootstrap collapses to a point."""
    boot = summary.pass_rate_bootstrap_ci
    if boot is not None and boot[1] > boot[0]:
        return boot, "bootstrap"
    if summary.pass_rate_ci is not None:
        return summary.pass_rate_ci, "wilson"
    return None, None


def _ranking(
    targets: Mapping[str, TargetSummary | GroupSummary],
    passed: Verdicts,
    boot: _Bootstrap = _Bootstrap(),
    health: Mapping[str, TargetHealth] | None = None,
) -> tuple[list[SliceRankingEntry], list[PairedComparison]]:
    """Targets by pass rate, ranked by what is significant (ties share the rank), each with
    its interval; and the paired comparisons the ranks rest on. A target `health` says is
    not ranked (too many errors) is listed after the ranked ones, without a rank."""
    health = health or {}
    rated = {
        name: s.pass_rate
        for name, s in targets.items()
        if s.pass_rate is not None and not (name in health and health[name].not_ranked)
    }
    tested = comparisons(
        {name: passed.get(name, {}) for name in sorted(rated, key=lambda n: (-rated[n], n))},
        n_resamples=boot.n_resamples,
        seed=boot.seed,
    )
    wilson = {n: targets[n].pass_rate_ci for n in rated if targets[n].pass_rate_ci is not None}
    position = significance_ranks(rated, tested, wilson)
    shared = Counter(position.values())
    ranked = sorted(rated, key=lambda name: (position[name], -rated[name], name))
    unrated = sorted(name for name in targets if name not in rated)

    def entry(name: str) -> SliceRankingEntry:
        summary = targets[name]
        ci, method = _interval(summary)
        rank = position.get(name)
        return SliceRankingEntry(
            target=name,
            pass_rate=rated.get(name),
            rank=rank,
            tied=rank is not None and shared[rank] > 1,
            ci=ci,
            ci_method=method,
            cases=summary.passes + summary.faults,
            errors=summary.errors,
            note=health[name].note if name in health else None,
        )

    return [entry(n) for n in ranked] + [entry(n) for n in unrated], tested


@dataclass(frozen=True)
class _Ranked:
    """The suite's ranking, which score orders it (and that in one line), and the paired
    tests beside it: McNemar's on the pass rates, the sign-flip test on the default scores."""

    entries: list[RankingEntry]
    by: str | None
    order: str | None
    pass_rate_tests: list[PairedComparison]
    score_tests: list[ScoreComparison]


def _default_ranking(
    targets: Mapping[str, TargetSummary],
    passed: Verdicts,
    outcomes: Mapping[str, list[CaseOutcome]],
    scores: Mapping[str, BalancedScore],
    boot: _Bootstrap = _Bootstrap(),
    health: Mapping[str, TargetHealth] | None = None,
) -> _Ranked:
    """The suite's ranking, ordered by the default score: rank 1 + the number of targets whose
    default score is significantly higher (sign-flip test, Holm-adjusted; the default scores'
    intervals where two share no case). The targets without a default score rank after
    those with one, by their pass-rate ranks among themselves; the not-ranked (errors) and
    those with no judged case come last, as in the pass-rate ranking, which every entry
    carries beside (``pass_rate_rank``)."""
    by_pass_rate, pass_rate_tests = _ranking(targets, passed, boot, health)
    pass_rate_entry = {e.target: e for e in by_pass_rate}
    rated = {e.target: e.pass_rate for e in by_pass_rate if e.rank is not None}
    valued = {n: scores[n].value for n in rated if n in scores and scores[n].value is not None}
    order_of = sorted(valued, key=lambda n: (-valued[n], -rated[n], n))
    score_tests = balanced_comparisons(
        {n: outcomes.get(n, []) for n in order_of}, n_resamples=boot.n_resamples, seed=boot.seed
    )
    intervals = {n: scores[n].ci for n in valued if scores[n].ci is not None}
    position = significance_ranks(valued, score_tests, intervals)
    unscored = {n: rate for n, rate in rated.items() if n not in valued}
    wilson = {n: targets[n].pass_rate_ci for n in unscored if targets[n].pass_rate_ci}
    after = significance_ranks(unscored, pass_rate_tests, wilson)
    position |= {n: len(valued) + rank for n, rank in after.items()}
    shared = Counter(position.values())
    ranked = sorted(valued, key=lambda n: (position[n], -valued[n], -rated[n], n))
    ranked += sorted(unscored, key=lambda n: (position[n], -unscored[n], n))
    ranked += [e.target for e in by_pass_rate if e.target not in position]
    mixed = bool(valued) and bool(unscored)

    def entry(name: str) -> RankingEntry:
        line = pass_rate_entry[name]
        score = scores.get(name)
        rank = position.get(name)
        note = line.note
        if mixed and name in unscored:
            note = "; ".join(n for n in (NO_DEFAULT_SCORE, note) if n)
        by = None if rank is None else "default_score" if name in valued else "pass_rate"
        return RankingEntry(
            **line.model_dump(exclude={"rank", "tied", "note"}),
            rank=rank,
            tied=rank is not None and shared[rank] > 1,
            note=note,
            default_score=score.value if score else None,
            default_score_ci=score.ci if score else None,
            discriminating_cases=score.discriminating_cases if score else 0,
            ranked_by=by,
            pass_rate_rank=line.rank,
            pass_rate_tied=line.tied,
        )

    if valued:
        by, order = (
            "default_score",
            ORDER_BY_DEFAULT_SCORE + (ORDER_UNSCORED_AFTER if mixed else ""),
        )
    else:
        by, order = ("pass_rate", ORDER_BY_PASS_RATE) if rated else (None, None)
    return _Ranked([entry(n) for n in ranked], by, order, pass_rate_tests, score_tests)


def _sliced_rankings(
    targets: Mapping[str, TargetSummary],
    slice_of: Callable[[TargetSummary], Mapping],
    passed: Mapping[str, Verdicts],
    boot: _Bootstrap,
    health: Mapping[str, TargetHealth] | None = None,
) -> dict[str, list[SliceRankingEntry]]:
    """One ranking per slice (requirement or capability) over the targets that ran it,
    paired on the slice's own cases (``passed``: slice -> target -> case -> passed)."""
    keys = sorted({key for summary in targets.values() for key in slice_of(summary)})
    return {
        key: _ranking(
            {name: slice_of(s)[key] for name, s in targets.items() if key in slice_of(s)},
            passed.get(key, {}),
            boot,
            health,
        )[0]
        for key in keys
    }


def _passed_by(
    runs: Iterable[ExecutionRecord], key: Callable[[ExecutionRecord], str]
) -> dict[str, dict[str, dict[str, bool]]]:
    return {k: _passed(group) for k, group in _by(list(runs), key).items()}


def _configuration_sensitivity(targets: Mapping[str, TargetSummary], snapshot: SuiteSnapshot):
    groups: dict[str, list[str]] = defaultdict(list)
    for name, summary in targets.items():
        if summary.config_group is not None:
            groups[summary.config_group].append(name)
    # what differs between the targets of one config_group: each kind says its settings
    settings = {config.name: config.settings() for config in snapshot.spec.targets}
    return configuration_sensitivity(
        groups,
        {name: s.profile.by_requirement for name, s in targets.items()},
        {name: s.pass_rate for name, s in targets.items()},
        settings,
    )


def _span(ranking: list[RankingEntry]) -> float | None:
    rates = [entry.pass_rate for entry in ranking if entry.pass_rate is not None]
    return max(rates) - min(rates) if rates else None


def _human_alignment(
    ranking: list[RankingEntry],
    human: Mapping[str, float],
    *,
    higher_is_better: bool,
    n_resamples: int,
    seed: int,
    source: str | None = None,
    per_target: Mapping[str, LabelAgreement] | None = None,
    reliability: RankingReliability | None = None,
) -> HumanAlignment:
    rates = {e.target: e.pass_rate for e in ranking if e.pass_rate is not None}
    defaults = {e.target: e.default_score for e in ranking if e.default_score is not None}
    oriented = {name: (v if higher_is_better else -v) for name, v in human.items()}
    correlation = rank_correlation(rates, oriented, n_resamples=n_resamples, seed=seed)
    by_default = rank_correlation(defaults, oriented, n_resamples=n_resamples, seed=seed)
    return HumanAlignment(
        **correlation.model_dump(),
        default_score=by_default,
        human_higher_is_better=higher_is_better,
        only_in_suite=sorted(set(rates) - set(human)),
        only_in_human=sorted(set(human) - set(rates)),
        human=dict(human),
        human_source=source,
        per_target=dict(per_target or {}),
        reliability=reliability,
    )


# ---------------------------------------------------------- evidence and errors


def _faults(
    snapshot: SuiteSnapshot,
    runs: list[ExecutionRecord],
    recipes: Mapping[str, Recipe],
    cases: Mapping[str, Case],
) -> list[FaultEvidence]:
    capabilities = {capability.id: capability for capability in snapshot.capabilities}
    evidence = []
    for execution in runs:
        if execution.verdict is not Verdict.fault:
            continue
        recipe, case = recipes[execution.recipe_id], cases[execution.case_id]
        capability = capabilities.get(recipe.capability_id)
        evidence.append(
            FaultEvidence(
                target=execution.target,
                case_id=case.id,
                recipe_id=recipe.id,
                recipe_name=recipe.name,
                requirement=recipe.requirement.value,
                capability_id=recipe.capability_id,
                capability=capability.name if capability else recipe.capability_id,
                relation=recipe.relation.kind,
                relation_spec=recipe.relation.model_dump(mode="json"),
                tolerance=execution.tolerance,
                example_index=case.example_index,
                context={
                    field: text
                    for field, text in case.example.items()
                    if field != snapshot.spec.scored_field
                },
                variants=case.variants,
                scores=execution.scores,
                normalised=execution.normalised,
                detail=execution.detail,
                gap=_score_gap(execution.normalised),
                transcripts=execution.transcripts,
            )
        )
    return sorted(evidence, key=lambda f: (f.target, f.recipe_id, cases[f.case_id].index))


def _score_gap(normalised: Mapping[str, list[float | None]]) -> float | None:
    """The largest gap between the variants' mean normalised scores (None with fewer than
    two scored variants): the size of a fault, on the scale the relation is checked on."""
    means = [
        fmean(s) for s in ([v for v in vs if v is not None] for vs in normalised.values()) if s
    ]
    return round(max(means) - min(means), 4) if len(means) > 1 else None


def _error_targets(
    logged: Iterable[Mapping[str, str]], failed: Iterable[ExecutionRecord]
) -> list[str]:
    """One target name per error: execution errors plus logged errors that name a target."""
    return [e.target for e in failed] + [e["target"] for e in logged if e.get("target")]


def _errors(snapshot: SuiteSnapshot, runs: list[ExecutionRecord]) -> ErrorSummary:
    failed = [execution for execution in runs if execution.verdict is Verdict.error]
    return ErrorSummary(
        total=len(snapshot.errors) + len(failed),
        by_stage=dict(sorted(Counter(e.get("stage", "unknown") for e in snapshot.errors).items())),
        by_target=dict(sorted(Counter(_error_targets(snapshot.errors, failed)).items())),
        items=list(snapshot.errors),
        execution=[
            ExecutionError(
                target=e.target,
                case_id=e.case_id,
                recipe_id=e.recipe_id,
                message=e.error or e.detail or "error without a message",
            )
            for e in failed
        ],
    )


_TASK_PREFIX = re.compile(r"[:./]")


def _call_totals(calls: list[CallRecord]) -> CallTotals:
    prompt = sum(call.prompt_tokens for call in calls)
    completion = sum(call.completion_tokens for call in calls)
    latency = sum(call.latency_s for call in calls)
    return CallTotals(
        total=len(calls),
        cached=sum(call.cached for call in calls),
        errors=sum(call.error is not None for call in calls),
        prompt_tokens=prompt,
        completion_tokens=completion,
        tokens=prompt + completion,
        cost=sum(call.cost for call in calls),
        latency_s=latency,
        mean_latency_s=latency / len(calls) if calls else None,
    )


def _calls(snapshot: SuiteSnapshot) -> CallSummary:
    groups = defaultdict(list)
    for call in snapshot.calls:
        groups[_TASK_PREFIX.split(call.task, maxsplit=1)[0] or "unknown"].append(call)
    return CallSummary(
        **_call_totals(snapshot.calls).model_dump(),
        by_task={task: _call_totals(calls) for task, calls in sorted(groups.items())},
    )


# ----------------------------------------------------------------------- build


class ReportContext:
    """What a report's sections are built from: the snapshot, the build's options, and what
    several sections share, each computed once on first use (sane.reporting.sections)."""

    def __init__(
        self,
        snapshot: SuiteSnapshot,
        *,
        human: Mapping[str, float] | None = None,
        human_higher_is_better: bool = True,
        human_source: str | None = None,
        human_agreement: Mapping[str, LabelAgreement] | None = None,
        human_pairwise: Mapping[str, PairwiseAgreement] | None = None,
        human_reliability: RankingReliability | None = None,
        n_resamples: int = 2000,
        seed: int | None = None,
    ) -> None:
        self.snapshot = snapshot
        self.human = human
        self.human_higher_is_better = human_higher_is_better
        self.human_source = human_source
        self.human_agreement = human_agreement
        self.human_pairwise = human_pairwise  # a comparative suite's targets on human pairs
        self.human_reliability = human_reliability  # how well the labels order the targets
        self.n_resamples = n_resamples
        self.seed = snapshot.config.seed if seed is None else seed
        self.boot = _Bootstrap(n_resamples=n_resamples, seed=self.seed)
        self.recipes = {recipe.id: recipe for recipe in snapshot.recipes}
        self.cases = {case.id: case for case in snapshot.cases}
        self._discriminating: dict[tuple[str, str, float], bool] = {}

    @cached_property
    def validity(self) -> _Validity:
        return _validity(self.snapshot)

    @cached_property
    def counted(self) -> tuple[list[ExecutionRecord], list[str]]:
        """The executions that count (joint-valid cases of validated families), and why
        any other was left out."""
        return _counted_executions(self.snapshot, self.validity, self.cases)

    @cached_property
    def planted(self) -> frozenset[str]:
        """The planted target controls (null scorers): run, never ranked as candidates."""
        return frozenset(t.config.name for t in self.snapshot.targets if is_control(t.config))

    @property
    def runs(self) -> list[ExecutionRecord]:
        """The counted executions of the user's targets (the planted controls' apart)."""
        return [e for e in self.counted[0] if e.target not in self.planted]

    def discriminating(self, recipe_id: str, target: str, tolerance: float) -> bool:
        """`sane.reporting._planted.discriminating`, asked once per recipe, target and bar
        (the tolerance section asks again under every bar)."""
        key = (recipe_id, target, tolerance)
        if key not in self._discriminating:
            self._discriminating[key] = discriminating(self, recipe_id, target, tolerance)
        return self._discriminating[key]

    @cached_property
    def case_outcomes(self) -> dict[str, list[CaseOutcome]]:
        return case_outcomes(self)

    @cached_property
    def default_scores(self) -> dict[str, BalancedScore]:
        return default_scores(self)

    @cached_property
    def planted_targets(self) -> PlantedTargets | None:
        return planted_targets(self)

    @cached_property
    def tolerance_sensitivity(self) -> ToleranceSensitivity | None:
        return tolerance_sensitivity(self)

    @cached_property
    def by_target(self) -> dict[str, list[ExecutionRecord]]:
        by_target = _by(self.runs, lambda e: e.target)
        for name in [*self.snapshot.tolerances, *(r.target for r in self.snapshot.inflation)]:
            if name not in self.planted:
                by_target.setdefault(name, [])
        return by_target

    @cached_property
    def targets(self) -> dict[str, TargetSummary]:
        targets = {
            name: _target_summary(self.snapshot, name, group, self.recipes, self.boot)
            for name, group in sorted(self.by_target.items())
        }
        for result in self.snapshot.inflation:
            if result.target not in targets:  # a planted control's (never searched now)
                continue
            line = _robustness(result, self.boot)
            if line is not None:  # beside the requirements, so every ranking and heatmap shows it
                targets[result.target].by_requirement[ROBUSTNESS] = line
        return targets

    @cached_property
    def fault_flags(self) -> dict[str, dict[str, bool]]:
        """target -> family -> whether any of its cases is a fault."""
        return {
            name: {rid: family.faults > 0 for rid, family in summary.by_family.items()}
            for name, summary in self.targets.items()
        }

    @cached_property
    def health(self) -> dict[str, TargetHealth]:
        example_of = {case.id: case.example_index for case in self.snapshot.cases}
        return {
            name: target_health(
                self.by_target[name],
                example_of,
                _contract(self.snapshot, name),
                summary.sensitivity,
            )
            for name, summary in self.targets.items()
        }

    @cached_property
    def ranked(self) -> _Ranked:
        return _default_ranking(
            self.targets,
            _passed(self.runs),
            self.case_outcomes,
            self.default_scores,
            self.boot,
            self.health,
        )

    @property
    def ranking(self) -> list[RankingEntry]:
        return self.ranked.entries

    @cached_property
    def ranking_by_requirement(self) -> dict[str, list[SliceRankingEntry]]:
        recipes = self.recipes
        passed = _passed_by(self.runs, lambda e: recipes[e.recipe_id].requirement.value)
        passed[ROBUSTNESS] = {r.target: r.family_verdicts for r in self.snapshot.inflation}
        by_requirement = _sliced_rankings(
            self.targets, lambda s: s.by_requirement, passed, self.boot, self.health
        )
        if ROBUSTNESS in by_requirement:  # the oracle-free line after the six requirements
            by_requirement[ROBUSTNESS] = by_requirement.pop(ROBUSTNESS)
        return by_requirement

    @cached_property
    def funnel(self) -> Funnel:
        any_fault = {
            rid for flags in self.fault_flags.values() for rid, hit in flags.items() if hit
        }
        return _funnel(self.snapshot, self.validity, len(any_fault))

    @cached_property
    def review(self) -> ReviewSummary | None:
        return _review(self.snapshot, self.validity)

    @cached_property
    def faults(self) -> list[FaultEvidence]:
        return _faults(self.snapshot, self.runs, self.recipes, self.cases)


def build_report(snapshot: SuiteSnapshot, **options: Any) -> Report:
    """The report of one suite: every registered section built from one `ReportContext`.

    Options: ``human`` maps target -> benchmark score (higher = better unless
    ``human_higher_is_better`` is False, e.g. for ranks where 1 is best); ``human_source``
    says where the benchmark came from and ``human_agreement`` carries the per-target
    agreement it was computed from, if any (``human_pairwise``: a comparative suite's
    agreement with human pairwise verdicts, per target; ``human_reliability``: the labels'
    split-half reliability of the targets' order). Bootstrap intervals use
    ``n_resamples`` and ``seed`` (default: the suite's seed).
    """
    context = ReportContext(snapshot, **options)
    built = {name: section.build(context) for name, section in SECTIONS.items()}
    own = {name: value for name, value in built.items() if name in Report.model_fields}
    return Report(**own, sections={n: v for n, v in built.items() if n not in own})


def _suite_info(context: ReportContext) -> SuiteInfo:
    snapshot = context.snapshot
    return SuiteInfo(
        scorer=snapshot.spec.name,
        criterion=snapshot.spec.criterion,
        model=snapshot.config.model,
        oracle_models=snapshot.config.oracle_models,
        votes=snapshot.config.votes,
        cases_per_recipe=snapshot.config.cases,
        tau=snapshot.config.threshold,
        generator=snapshot.config.generator,
        seed=snapshot.config.seed,
        created=snapshot.created,
    )


def _findings(context: ReportContext) -> Findings:
    ranked = {e.target: context.targets[e.target] for e in context.ranking}
    found = build_findings(
        ranked, context.snapshot.inflation, context.funnel, context.review,
        context.snapshot.comparisons,
    )  # fmt: skip
    planted = context.planted_targets
    flagged = set(planted.not_shown_better) if planted else set()
    worse = set(planted.shown_worse) if planted else set()

    def flag(target: str) -> str:
        return SHOWN_WORSE if target in worse else NOT_SHOWN_BETTER

    targets = [
        t.model_copy(
            update={"headline": f"{t.target}: {flag(t.target)} ({CONSTANT}). {t.headline}"}
        )
        if t.target in flagged
        else t
        for t in found.targets
    ]
    return found.model_copy(update={"targets": targets})


def _by_capability(context: ReportContext) -> dict[str, list[SliceRankingEntry]]:
    recipes = context.recipes
    passed = _passed_by(context.runs, lambda e: recipes[e.recipe_id].capability_id)
    return _sliced_rankings(
        context.targets, lambda s: s.by_capability, passed, context.boot, context.health
    )


def _human(context: ReportContext) -> HumanAlignment | None:
    if context.human is None:
        return None
    return _human_alignment(
        context.ranking,
        context.human,
        higher_is_better=context.human_higher_is_better,
        n_resamples=context.n_resamples,
        seed=context.seed,
        source=context.human_source,
        per_target=context.human_agreement,
        reliability=context.human_reliability,
    )


def _thresholds(context: ReportContext) -> list[ThresholdRow]:
    config = context.snapshot.config
    taus = sorted(set(default_taus(config.cases)) | {config.threshold})
    joint_valid = {rid: count.joint_valid for rid, count in context.validity.families.items()}
    return threshold_sensitivity(joint_valid, context.fault_flags, taus=taus)


def _transcripts(context: ReportContext) -> dict[str, Transcript]:
    held = context.snapshot.transcripts
    return {
        key: held[key]
        for fault in context.faults
        for keys in fault.transcripts.values()
        for key in keys
        if key in held
    }


def _warnings(context: ReportContext) -> list[str]:
    planted = context.planted_targets
    floors = context.tolerance_sensitivity
    return (
        context.validity.warnings
        + context.counted[1]
        + _transcript_warnings(context.snapshot)
        + (planted.warnings if planted else [])
        + (floors.warnings() if floors else [])
    )


# sane's own sections, in the order of the report's fields
for _section in (
    ReportSection("suite", _suite_info),
    ReportSection("validity", lambda c: c.funnel),
    ReportSection("findings", _findings),
    ReportSection("comparison_audit", comparison_audit),
    ReportSection("targets", lambda c: c.targets),
    ReportSection("ranking", lambda c: c.ranking),
    ReportSection("ranked_by", lambda c: c.ranked.by),
    ReportSection("ranking_order", lambda c: c.ranked.order),
    ReportSection("comparisons", lambda c: c.ranked.pass_rate_tests),
    ReportSection("default_score_comparisons", lambda c: c.ranked.score_tests),
    ReportSection("span", lambda c: _span(c.ranking)),
    ReportSection("ranking_by_requirement", lambda c: c.ranking_by_requirement),
    ReportSection("ranking_by_capability", _by_capability),
    ReportSection("planted_targets", lambda c: c.planted_targets),
    ReportSection(
        "default_scores", lambda c: {n: s for n, s in c.default_scores.items() if n in c.targets}
    ),
    ReportSection(
        "span_by_requirement",
        lambda c: {req: _span(entries) for req, entries in c.ranking_by_requirement.items()},
    ),
    ReportSection("human_alignment", _human),
    ReportSection("threshold_sensitivity", _thresholds),
    ReportSection("tolerance_sensitivity", lambda c: c.tolerance_sensitivity),
    ReportSection(
        "configuration_sensitivity", lambda c: _configuration_sensitivity(c.targets, c.snapshot)
    ),
    ReportSection("faults", lambda c: c.faults),
    ReportSection("errors", lambda c: _errors(c.snapshot, c.runs)),
    ReportSection("calls", lambda c: _calls(c.snapshot)),
    ReportSection(
        "not_executed",
        lambda c: sorted({t.name for t in c.snapshot.spec.targets} - set(c.targets) - c.planted),
    ),
    ReportSection("review", lambda c: c.review),
    ReportSection("health", lambda c: c.health),
    ReportSection("transcripts", _transcripts),
    ReportSection("inflation", lambda c: c.snapshot.inflation),
    ReportSection("warnings", _warnings),
):
    register_section(_section)


def _transcript_warnings(snapshot: SuiteSnapshot) -> list[str]:
    if not snapshot.transcripts_dropped:
        return []
    message = (
        f"{snapshot.transcripts_dropped} call transcript(s) were not kept: the suite's "
        f"transcript cap ({SUITE_CAP // 2**20} M characters of prompts and replies) was "
        "reached; their scores and votes are kept"
    )
    return [message]
