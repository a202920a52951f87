"""Panel kinds: how a suite's panel puts each question to the oracle, in one object per kind.

A panel kind owns everything that differs between kinds: the template and ballot of each
question (alignment, realization, applicability), its contrast question (the texts' roles
exchanged, or a decoy instruction: sane.panel.ballots), whether a recipe's mirror must be
rejected, the order in which a recipe and its mirror are asked, and so how many calls a vote
costs. The pipeline asks the kind for a rendered `PanelQuestion` and hands it to the panel
(`OraclePanel.decide_question`); the dry-run estimate asks the same kind what a vote costs.
Nothing else branches on a panel's name.

Kinds register through the `sane.panel_kinds` entry-point group (sane._registry), as every
other kind does; another package adds one by subclassing `PanelKind` and registering an
instance with `register_panel_kind`. sane's own:

- `plain`: the recipe's own majority decides alignment; every question is yes/no.
- `contrastive` (the default): as plain, and a recipe is aligned only when the panel also
  rejects its mirror (the same recipe claiming the opposite direction).
- `blind`: contrastive, and a pair relation's direction is asked without being shown
  (alignment, and the applicability of each case), every answer order-checked; a case's
  realization is checked against a decoy instruction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sane._registry import Registry
from sane.panel import controls
from sane.panel.ballots import (
    DECOY_INSTRUCTION,
    TEXTS_EXCHANGED,
    Ballot,
    YesNoBallot,
    direction_ballot,
)
from sane.prompts import messages
from sane.records import Case, Question, Recipe, ScorerSpec

Prompt = list[dict[str, str]]

ALIGNMENT_TEMPLATE = "vote_alignment.j2"
CASE_TEMPLATES = {
    Question.realization: "vote_realization.j2",
    Question.applicability: "vote_applicability.j2",
}
DIRECTION_TEMPLATES = {
    Question.alignment: "vote_direction.j2",
    Question.applicability: "vote_case_direction.j2",
}


@dataclass(frozen=True)
class PanelQuestion:
    """One question as the panel asks it: the prompt, its ballot, and the prompt of the
    ballot's contrast question (None when the ballot has none)."""

    question: Question
    template: str
    ballot: Ballot
    prompt: Prompt
    contrast: Prompt | None = None

    @property
    def calls_per_vote(self) -> int:
        """A vote on a ballot with a contrast is two calls: the question and its contrast."""
        return 1 if self.contrast is None else 2


@dataclass(frozen=True)
class PanelKind:
    """The plain panel, and the base every kind refines: yes/no on every question.

    `summary` is the kind's one line in `--help` and the docs. `rejects_mirror`: a recipe is
    aligned only when its mirror is not accepted (sane.validators.families).
    `mirror_after_recipe`: the mirror is asked once the recipe's answer is cached (its
    ballot replays it) rather than beside it."""

    name: str
    summary: str
    rejects_mirror: bool = False
    mirror_after_recipe: bool = False

    def ballot(self, question: Question, recipe: Recipe) -> tuple[str, Ballot]:
        """The template and ballot of `question` about `recipe` (or one of its cases)."""
        template = ALIGNMENT_TEMPLATE if question is Question.alignment else None
        return template or CASE_TEMPLATES[question], YesNoBallot(question.value)

    def question(
        self,
        question: Question,
        spec: ScorerSpec,
        recipe: Recipe,
        case: Case | None = None,
        suite: Sequence[Recipe] = (),
    ) -> PanelQuestion:
        """`question` rendered for `recipe` (and `case`, for a case question), with its
        contrast: the same prompt with the texts' roles exchanged, or the case asked about a
        decoy instruction chosen from `suite` (the one the case's decoy control uses, so a
        control repeats a vote from the cache; without another instruction in the suite, the
        plain yes/no)."""
        template, ballot = self.ballot(question, recipe)
        return _rendered(question, template, ballot, spec, recipe, case, suite)

    def control_question(self, spec: ScorerSpec, recipe: Recipe, case: Case) -> PanelQuestion:
        """A planted control's realization question: the plain yes/no under every kind, so
        that a control's answer is known whatever the panel."""
        template, ballot = CASE_TEMPLATES[Question.realization], YesNoBallot("realization")
        return _rendered(Question.realization, template, ballot, spec, recipe, case)


def _rendered(
    question: Question,
    template: str,
    ballot: Ballot,
    spec: ScorerSpec,
    recipe: Recipe,
    case: Case | None = None,
    suite: Sequence[Recipe] = (),
) -> PanelQuestion:
    context = {"spec": spec, "recipe": recipe, "relation_json": recipe.relation.model_dump_json()}
    if case is not None:
        context["case"] = case
    contrast = None
    if ballot.contrast == TEXTS_EXCHANGED:
        contrast = messages(template, swap=True, **context)
    elif ballot.contrast == DECOY_INSTRUCTION:
        assert case is not None, "a decoy contrast is asked about a case"
        decoy = controls.decoy(recipe, case, list(suite))
        if decoy is None:  # no other instruction in the suite to contrast with
            ballot = YesNoBallot(ballot.task)
        else:
            contrast = messages(template, **{**context, "recipe": decoy[0]})
    return PanelQuestion(question, template, ballot, messages(template, **context), contrast)


@dataclass(frozen=True)
class ContrastivePanel(PanelKind):
    rejects_mirror: bool = True


@dataclass(frozen=True)
class BlindPanel(ContrastivePanel):
    mirror_after_recipe: bool = True

    def ballot(self, question: Question, recipe: Recipe) -> tuple[str, Ballot]:
        if question in DIRECTION_TEMPLATES:
            direction = direction_ballot(recipe.relation)
            if direction is not None:  # a pair relation: its direction, asked without it
                return DIRECTION_TEMPLATES[question], direction
        if question is Question.realization:
            return CASE_TEMPLATES[question], YesNoBallot(question.value, contrast=DECOY_INSTRUCTION)
        return super().ballot(question, recipe)


PANEL_KINDS: Registry[PanelKind] = Registry("panel kind", group="sane.panel_kinds")
DEFAULT_PANEL = "contrastive"


def register_panel_kind(kind: PanelKind) -> PanelKind:
    """Register `kind` under its name (from the module an entry point names)."""
    return PANEL_KINDS.register(kind.name)(kind)


def panel_kind(name: str) -> PanelKind:
    """The registered kind `name`; a ValueError naming the known kinds otherwise."""
    if name not in PANEL_KINDS:
        raise ValueError(PANEL_KINDS.unknown(name))
    return PANEL_KINDS[name]


register_panel_kind(
    ContrastivePanel(
        "contrastive",
        "a recipe is aligned only if the panel also rejects its mirror (the default)",
    )
)
register_panel_kind(PanelKind("plain", "the recipe's own majority decides"))
register_panel_kind(
    BlindPanel(
        "blind",
        "contrastive, and a pair relation's direction is asked without being shown, "
        "each answer order-checked; realization is checked against a decoy instruction",
    )
)
