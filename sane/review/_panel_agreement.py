"""How far the oracle panel agrees with human labels, and what that does to the suite.

Per decision type (alignment, realization, applicability): accuracy with a Wilson
interval, Cohen's kappa, the confusion counts and two error rates: ``false_accept_rate``
= P(human no | panel yes) and ``false_reject_rate`` = P(human yes | panel no). The panel's
``unresolved`` counts as ``no``, as it does in the method.

Effect on validated families, two ways:
- ``substituted_validated``: recount the families with every human-labelled decision
  replacing the panel's (exact for labelled items, the panel elsewhere).
- ``expected_validated``: where no human label exists, treat each decision as correct
  with the measured rates (P(valid | panel yes) = 1 - false-accept rate, P(valid | panel
  no) = false-reject rate), take cases as independent, and sum per family
  P(aligned) * P(joint-valid cases >= tau) (a Poisson-binomial tail); ``expected_sd`` is the
  spread of that count with families independent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache

import numpy as np
from jinja2 import Environment
from pydantic import Field

from sane._record import Record
from sane.records import Case, Decision, PanelDecision, Question, SuiteSnapshot
from sane.reporting.formatting import markdown_environment
from sane.stats import pass_rate_ci
from sane.validators.families import aligned_recipe_ids, count_family, panel_decisions
from sane.validators.guards import guarded_cases, usable


class Agreement(Record):
    question: Question
    labelled: int
    panel_unresolved: int = 0
    accuracy: float | None = None
    accuracy_ci: tuple[float, float] | None = None
    kappa: float | None = None
    confusion: dict[str, dict[str, int]] = Field(default_factory=dict)  # panel -> human -> n
    false_accept_rate: float | None = None
    false_reject_rate: float | None = None


class FamilyEffect(Record):
    tau: int
    panel_validated: int
    substituted_validated: int
    gained: list[str] = Field(default_factory=list)
    lost: list[str] = Field(default_factory=list)
    expected_validated: float
    expected_sd: float


class AgreementReport(Record):
    scorer: str
    questions: dict[str, Agreement]
    families: FamilyEffect
    notes: list[str] = Field(default_factory=list)


def cohen_kappa(first: Sequence[str], second: Sequence[str]) -> float | None:
    """Cohen's kappa of two raters over the same items; None when chance agreement is 1
    (both raters gave one and the same label throughout) or there are no items."""
    if len(first) != len(second):
        raise ValueError("both raters must label the same items")
    if not first:
        return None
    labels = sorted(set(first) | set(second))
    index = {label: i for i, label in enumerate(labels)}
    table = np.zeros((len(labels), len(labels)))
    np.add.at(table, ([index[a] for a in first], [index[b] for b in second]), 1)
    total = table.sum()
    observed = np.trace(table) / total
    expected = float(table.sum(axis=1) @ table.sum(axis=0)) / total**2
    if np.isclose(expected, 1.0):
        return None
    return float((observed - expected) / (1.0 - expected))


def _panel_yes(decisions: Mapping[str, PanelDecision], item: str) -> bool:
    decision = decisions.get(item)
    return decision is not None and decision.decision is Decision.yes


def _rate(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def _agreement(
    question: Question, decisions: Mapping[str, PanelDecision], labels: Mapping[str, bool]
) -> Agreement:
    items = [item for item in labels if item in decisions]
    panel = ["yes" if _panel_yes(decisions, i) else "no" for i in items]
    human = ["yes" if labels[i] else "no" for i in items]
    confusion = {p: {h: 0 for h in ("yes", "no")} for p in ("yes", "no")}
    for p, h in zip(panel, human, strict=True):
        confusion[p][h] += 1
    correct = sum(p == h for p, h in zip(panel, human, strict=True))
    said_yes, said_no = sum(confusion["yes"].values()), sum(confusion["no"].values())
    return Agreement(
        question=question,
        labelled=len(items),
        panel_unresolved=sum(decisions[i].decision is Decision.unresolved for i in items),
        accuracy=_rate(correct, len(items)),
        accuracy_ci=pass_rate_ci(correct, len(items)) if items else None,
        kappa=cohen_kappa(panel, human),
        confusion=confusion,
        false_accept_rate=_rate(confusion["yes"]["no"], said_yes),
        false_reject_rate=_rate(confusion["no"]["yes"], said_no),
    )


def _substituted(
    decisions: Mapping[str, PanelDecision], labels: Mapping[str, bool], question: Question
) -> dict[str, PanelDecision]:
    merged = dict(decisions)
    for item, label in labels.items():
        merged[item] = PanelDecision(
            subject_id=item,
            question=question,
            decision=Decision.yes if label else Decision.no,
            votes=[],
        )
    return merged


def _cases_by_recipe(snapshot: SuiteSnapshot) -> dict[str, list[Case]]:
    grouped: dict[str, list[Case]] = {}
    for case in snapshot.cases:
        grouped.setdefault(case.recipe_id, []).append(case)
    return grouped


def _validated(
    snapshot: SuiteSnapshot,
    alignment: Mapping[str, PanelDecision],
    realization: dict[str, PanelDecision],
    applicability: dict[str, PanelDecision],
) -> set[str]:
    """The families these decisions validate, by the suite's own rules (alignment with its
    panel's mirror rule and the guards; cases a guard rejects never count)."""
    tau = snapshot.config.threshold
    by_recipe = _cases_by_recipe(snapshot)
    aligned = aligned_recipe_ids(snapshot.recipes, alignment, snapshot.config)
    guarded = guarded_cases(snapshot.recipes, snapshot.cases)
    validated = set()
    for recipe in snapshot.recipes:
        cases = by_recipe.get(recipe.id, [])
        family = count_family(recipe.id, cases, realization, applicability, tau, set(guarded))
        if recipe.id in aligned and family.validated:
            validated.add(recipe.id)
    return validated


def _tail(probabilities: Sequence[float], tau: int) -> float:
    """P(sum of independent Bernoulli(p_i) >= tau), by convolution."""
    distribution = np.array([1.0])
    for p in probabilities:
        distribution = np.convolve(distribution, [1.0 - p, p])
    return float(distribution[tau:].sum()) if tau < len(distribution) else 0.0


class _Validity:
    """P(a decision is truly yes): the human label if any, else the measured rates."""

    def __init__(
        self,
        decisions: Mapping[str, PanelDecision],
        labels: Mapping[str, bool],
        stats: Agreement,
        notes: list[str],
    ) -> None:
        self.decisions, self.labels = decisions, labels
        far, frr = stats.false_accept_rate, stats.false_reject_rate
        self.if_yes = 1.0 if far is None else 1.0 - far
        self.if_no = 0.0 if frr is None else frr
        q = stats.question.value
        if far is None:
            notes.append(f"{q}: no labelled panel 'yes' decision; those are taken as correct")
        if frr is None:
            notes.append(f"{q}: no labelled panel 'no' decision; those are taken as correct")

    def __call__(self, item: str) -> float:
        if item in self.labels:
            return 1.0 if self.labels[item] else 0.0
        return self.if_yes if _panel_yes(self.decisions, item) else self.if_no


def _expected(
    snapshot: SuiteSnapshot, probability: Mapping[Question, _Validity]
) -> tuple[float, float]:
    tau = snapshot.config.threshold
    by_recipe = _cases_by_recipe(snapshot)
    per_family = []
    for recipe in snapshot.recipes:
        cases = [
            probability[Question.realization](case.id)
            * probability[Question.applicability](case.id)
            for case in by_recipe.get(recipe.id, [])
            if usable(recipe, case)  # never put to the panel: no chance to count
        ]
        per_family.append(probability[Question.alignment](recipe.id) * _tail(cases, tau))
    values = np.array(per_family)
    return float(values.sum()), float(np.sqrt((values * (1 - values)).sum()))


def agreement(
    snapshot: SuiteSnapshot, labels: Mapping[Question, Mapping[str, bool]]
) -> AgreementReport:
    """The panel's agreement with the human labels and the effect on validated families."""
    # the panel's own decisions, also where `sane review apply` put the reviewers' in force
    panel = {
        Question.alignment: panel_decisions(snapshot.alignment),
        Question.realization: panel_decisions(snapshot.realization),
        Question.applicability: panel_decisions(snapshot.applicability),
    }
    notes: list[str] = []
    stats = {q: _agreement(q, panel[q], labels.get(q, {})) for q in Question}
    for question, given in labels.items():
        unknown = len(set(given) - set(panel[question]))
        if unknown:
            notes.append(f"{question.value}: {unknown} label(s) for items without a panel decision")
    merged = {q: _substituted(panel[q], labels.get(q, {}), q) for q in Question}
    before = _validated(snapshot, *panel.values())
    after = _validated(snapshot, *merged.values())
    probability = {q: _Validity(panel[q], labels.get(q, {}), stats[q], notes) for q in Question}
    expected, sd = _expected(snapshot, probability)
    return AgreementReport(
        scorer=snapshot.spec.name,
        questions={q.value: s for q, s in stats.items()},
        families=FamilyEffect(
            tau=snapshot.config.threshold,
            panel_validated=len(before),
            substituted_validated=len(after),
            gained=sorted(after - before),
            lost=sorted(before - after),
            expected_validated=round(expected, 4),
            expected_sd=round(sd, 4),
        ),
        notes=notes,
    )


@cache
def _environment() -> Environment:
    return markdown_environment("sane.review")


def render_agreement(report: AgreementReport) -> str:
    """The agreement report as markdown."""
    return _environment().get_template("agreement.md.j2").render(report=report)
