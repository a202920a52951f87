"""`sane review apply`: reviewers' labels replace the panel's decisions.

JRH lets reviewers accept or reject tests; here an imported label takes the place of the
panel's decision on the same item (the panel's own decision and votes are kept beside it),
families are counted again from the decisions in force, and the report says what changed.
Results follow: a case that is no longer valid leaves every result; a newly valid one is
scored by the next `sane execute`; a recipe that reviewers aligned but that has no cases yet
gets them from the next `sane generate` (its stages are reopened).
"""

from __future__ import annotations

from pydantic import BaseModel

from sane.errors import InputError
from sane.records import Decision, Question, Stage
from sane.review._labels import load_labels
from sane.suites.store import SuiteStore
from sane.validators.families import executable_cases, family_counts

# The stages that write and judge cases: reopened when reviewers align a recipe without cases.
CASE_STAGES = (Stage.cases, Stage.case_panel, Stage.controls, Stage.families)


class ApplyResult(BaseModel):
    applied: dict[str, int]  # question -> labels now in force
    changed: dict[str, int]  # question -> of those, decided otherwise (or not) by the panel
    validated_before: int
    validated_after: int
    gained: list[str]  # recipe ids of families validated now and not before
    lost: list[str]
    need_cases: list[str]  # recipes aligned by reviewers that have no cases yet
    cases_to_execute: int  # valid (case, target) pairs without a result yet


def apply_labels(store: SuiteStore, source: str = "review") -> ApplyResult:
    labels = load_labels(store)
    if not any(labels.values()):
        raise InputError(str(store.path), None, "no human labels yet; run `sane review import`")
    config = store.config()
    before = {family.recipe_id for family in store.families() if family.validated}
    applied, changed = {}, {}
    for question in Question:
        decided = store.decisions(question)
        given = {s: Decision.yes if yes else Decision.no for s, yes in labels[question].items()}
        store.put_overrides(question, given, source)
        applied[question.value] = len(given)
        changed[question.value] = sum(
            s not in decided or d is not decided[s].panel for s, d in given.items()
        )
    families = family_counts(store, config)
    need_cases = [family.recipe_id for family in families if family.cases == 0]
    store.put_families(families, replace=True)
    if need_cases:
        store.reopen(CASE_STAGES)
    after = {family.recipe_id for family in families if family.validated}
    return ApplyResult(
        applied=applied,
        changed=changed,
        validated_before=len(before),
        validated_after=len(after),
        gained=sorted(after - before),
        lost=sorted(before - after),
        need_cases=need_cases,
        cases_to_execute=_unscored(store),
    )


def _unscored(store: SuiteStore) -> int:
    """Valid cases a target that has run on this suite has no result for yet."""
    executed = {(e.target, e.case_id) for e in store.executions()}
    targets = {target for target, _ in executed}
    valid = executable_cases(
        store.recipes(),
        store.cases(),
        store.families(),
        store.decisions(Question.realization),
        store.decisions(Question.applicability),
    )
    return sum((target, case.id) not in executed for _, case in valid for target in targets)
