"""Planted controls: known-wrong items the oracle panel judges beside the real ones.

A panel that says "yes" to everything validates every suite, so each suite
measures its own panel on items whose right answer is "no", never executed:

- **mirror**: a recipe with its relation's direction flipped (decrease <->
  increase, no_increase <-> no_decrease, a series reversed, a band mirrored),
  asked the alignment question. It doubles as the contrastive half of the
  alignment decision: a recipe counts as aligned only when the panel accepts
  it AND rejects its mirror, so an always-yes panel aligns nothing;
- **no-op**: a real case whose variants were all replaced by the original
  text, asked the realization question;
- **decoy**: a real case asked whether it realizes another recipe's
  instruction;
- **faithful** (a positive control, right answer "yes"): a real case's
  original edited by code exactly as a plain instruction says (double the
  spaces, append fixed sentences), so an always-no panel fails too.

Every order-checked vote (sane.panel.ballots: a direction asked as is and with
the texts' roles exchanged) is a control too: its two answers must agree. The
share that did not is the panel's order-inconsistency rate; an oracle over
`MAX_ORDER_INCONSISTENT` is not reading the texts.

Each kind is one `ControlKind` (below): the question it is asked, its right answer, when
it is planted and how its item is built. The panel plants them, the estimate counts them,
the review page rebuilds them and the reports tally them from these objects; another
package adds one by registering a `ControlKind` from a module of the `sane.control_kinds`
entry-point group. Control decisions live beside the real ones under subject ids
`control:KIND:SHOWN` (`subject_of` writes them, `parse` alone reads them). The report gives the false-accept rate (negative controls the
panel accepted) and the false-reject rate (positive controls it did not
accept), each with a Wilson interval; above `MAX_FALSE_ACCEPT` or
`MAX_FALSE_REJECT` the panel has failed its controls and the suite's faults
are not evidence.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from sane._registry import Registry
from sane.edits import FILLER, TransformError, TransformInput, apply_transform
from sane.panel.ballots import order_consistent
from sane.records import (
    Case,
    Decision,
    PairRelation,
    PanelDecision,
    Question,
    Recipe,
)
from sane.relations import kind_of, mirror

PREFIX = "control:"
MAX_FALSE_ACCEPT = 0.10  # above this share of accepted negative controls, the panel fails
MAX_FALSE_REJECT = 0.50  # ...or above this share of rejected positive controls
MAX_ORDER_INCONSISTENT = 0.50  # ...or above this share of order-checked votes that disagreed

Control = tuple[str, Recipe, Case]  # (subject id, recipe shown, case shown)


@dataclass(frozen=True)
class Planting:
    """What a control is built from: the candidate recipe (its place `seq` among the suite's
    `recipes`), the example its first case is written from, and, for a tested family, its
    first usable case."""

    seq: int
    recipe: Recipe
    recipes: tuple[Recipe, ...]
    example_index: int
    examples: tuple[dict[str, str], ...]
    scored_field: str
    first_case: Case | None = None


@dataclass(frozen=True)
class ControlKind:
    """One kind of planted control, complete (tests/test_registries.py walks every kind).

    - `question`: the question it is asked (a mirror the alignment question, in the recipe's
      own flow as the contrastive half; every other kind the realization question, as the
      plain yes/no under every panel kind).
    - `right`: its right answer (`no`: a negative control, counted in the false-accept rate;
      `yes`: a positive one, in the false-reject rate).
    - `planted`: when it is planted: `alignment` (beside the recipe's alignment), `recipe`
      (for each candidate recipe, before it has cases: the item is written from the example
      its first case is written from) or `family` (from a tested family's first usable case).
    - `build(planting)`: the recipe and case shown, or None where the kind has none for this
      recipe (a mirror is built by `mirrored_recipe`, in the alignment flow).
    - `summary`: what it is, in words.
    """

    name: str
    question: Question
    right: Decision
    planted: Literal["alignment", "recipe", "family"]
    summary: str
    build: Callable[[Planting], tuple[Recipe, Case] | None] | None = None

    @property
    def negative(self) -> bool:
        return self.right is Decision.no

    def shown(self, planting: Planting) -> str:
        """The id of what it shows: the recipe, its first case to be, or the family's case."""
        if self.planted == "alignment":
            return planting.recipe.id
        if self.planted == "recipe":
            return f"{planting.recipe.id}/case-0"
        assert planting.first_case is not None
        return planting.first_case.id

    def recipe_of(self, shown: str) -> str:
        """The recipe whose control this is, from the id of what it shows."""
        return shown if self.planted == "alignment" else shown.rsplit("/", 1)[0]

    def plant(self, planting: Planting) -> list[Control]:
        built = self.build(planting) if self.build is not None else None
        return [] if built is None else [(subject_of(self, self.shown(planting)), *built)]


CONTROL_KINDS: Registry[ControlKind] = Registry("control kind", group="sane.control_kinds")


def register_control_kind(kind: ControlKind) -> ControlKind:
    """Register `kind` under its name (from the module an entry point names)."""
    return CONTROL_KINDS.register(kind.name)(kind)


def subject_of(kind: ControlKind, shown: str) -> str:
    """The subject id a control's decision is stored under."""
    return f"{PREFIX}{kind.name}:{shown}"


def is_control(subject_id: str) -> bool:
    return subject_id.startswith(PREFIX)


def parse(subject_id: str) -> tuple[ControlKind, str] | None:
    """A control's kind and the id of what it shows; None for a real subject or a kind no
    package registers here (a suite from a run with a plugin since removed)."""
    if not is_control(subject_id):
        return None
    name, _, shown = subject_id.removeprefix(PREFIX).partition(":")
    kind = CONTROL_KINDS.get(name)
    return None if kind is None else (kind, shown)


def owner(subject_id: str) -> str | None:
    """The recipe or case a control belongs to (the review page asks it beside that one)."""
    parsed = parse(subject_id)
    if parsed is None:
        return None
    kind, shown = parsed
    return shown if kind.planted == "family" else kind.recipe_of(shown)


def mirror_id(recipe_id: str) -> str:
    return subject_of(CONTROL_KINDS["mirror"], recipe_id)


def mirrored_recipe(recipe: Recipe) -> Recipe | None:
    """The recipe claiming the opposite direction, or None when no such contradiction exists.

    Its id is the recipe's own: the panel must not be able to tell the two apart
    by anything but the claimed direction. It is stored under `mirror_id`. Its variant
    roles are listed as the recipe's are, relative to its relation: a series the mirror
    reverses is listed reversed, since a recipe writer lists a series' roles in its order,
    and a mirror whose "Variants:" line ran against its own prediction told a reader which
    of the two it was (a strong model's reader noticed, on a QAGS suite).
    """
    flipped = mirror(recipe.relation)
    if not kind_of(recipe.relation).mirror_contradicts or flipped == recipe.relation:
        return None
    moved = dict(zip(recipe.relation.roles(), flipped.roles(), strict=True))
    roles = [moved.get(role, role) for role in recipe.variant_roles]
    return recipe.model_copy(update={"relation": flipped, "variant_roles": roles})


# Positive controls: an instruction and code that carries it out exactly, so the right
# answer to "do the variants realize the instruction?" is yes.
FAITHFUL_EDITS: dict[str, tuple[str, str]] = {
    "extra_spaces": (
        "double the spaces",
        "Double every space between two words; change nothing else.",
    ),
    "meaningless_elongation": (
        "append filler",
        "Append these exact sentences at the end, changing nothing else: " + FILLER,
    ),
}


def faithful_edit(seq: int) -> str:
    """The positive-control edit for the seq-th recipe (alternating, so both are measured)."""
    edits = sorted(FAITHFUL_EDITS)
    return edits[seq % len(edits)]


def noop_case(recipe: Recipe, case: Case, scored_field: str) -> Case:
    """Negative control: every variant replaced by the example's own, unchanged text.

    The unchanged text is the example's scored field (its "original" variant where the case
    has one). Not a variant's text: in a recipe whose variants are all edits (a series of
    "half_unfaithful" and "all_unfaithful" texts), copying one edited text into every role
    shows a reader texts that do differ from the example, as one of the roles asked, and a
    careful reader rightly called such a "no-op" realized (the strong model's readers did, 4
    of 16 times, on a QAGS suite). Keeps the real case's id: it is stored under
    `case_control_id("noop", ...)`.
    """
    text = case.variants.get("original") or case.example.get(scored_field)
    if text is None:
        text = next(iter(case.variants.values()))
    return case.model_copy(update={"variants": {role: text for role in recipe.variant_roles}})


def changes_something(recipe: Recipe) -> bool:
    """Whether a recipe asks for any text that differs from the example's: one that scores
    the example's text as it is (an `at_level` band on "original") is realized by copying it,
    so a copy is no known-wrong realization of it."""
    return bool(recipe.relation.must_differ()) or recipe.variant_roles != ["original"]


def faithful_case(
    recipe: Recipe,
    case_id: str,
    example_index: int,
    example: dict[str, str],
    original: str,
    edit: str,
) -> tuple[Recipe, Case] | None:
    """Positive control: an example's text edited by code exactly as a plain instruction says.

    Built from the example, not from a generated case, so it is asked for every
    candidate recipe with a pair relation, aligned or not: a panel that says "no"
    to everything fails it even when it let nothing through.
    """
    if not isinstance(recipe.relation, PairRelation):
        return None
    relation = recipe.relation
    try:
        changed = apply_transform(edit, TransformInput(text=original))
    except TransformError:
        return None
    name, instruction = FAITHFUL_EDITS[edit]
    fake = recipe.model_copy(update={"name": name, "instruction": instruction})
    variants = {relation.original: original, relation.perturbed: changed}
    case = Case(
        id=case_id,
        recipe_id=recipe.id,
        index=0,
        example_index=example_index,
        example=example,
        variants=variants,
    )
    return fake, case


DECOY_MAX_OVERLAP = 0.5
"""The most an instruction may share with a recipe's own (Jaccard over their words) and still
be its decoy: two recipes that ask for the same edit in other words ("make every claim
unsupported" twice over) are no decoys of each other, and a careful reader rightly said
their variants realized both (the strong model's readers, 2 of 12 decoys on a QAGS suite)."""


def _overlap(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


def decoy(recipe: Recipe, case: Case, others: Iterable[Recipe]) -> tuple[Recipe, Case] | None:
    """Negative control: the case with the instruction of the least similar other recipe.

    The other recipe tests another capability: two recipes of one capability often ask for
    one edit in other words (a strong model's readers rightly accepted such "decoys", 2 of
    12 on a QAGS suite, after the word-overlap bar below had already left out the closest).

    Only a recipe with the same variant roles lends its instruction: a decoy must look like
    the questions it hides among, and an instruction for two texts shown over a case of four
    is a form a reader can spot without reading what was changed."""
    words = set(recipe.instruction.casefold().split())
    candidates = [
        other
        for other in others
        if other.capability_id != recipe.capability_id
        and _overlap(words, set(other.instruction.casefold().split())) <= DECOY_MAX_OVERLAP
        and other.variant_roles == recipe.variant_roles
    ]
    if not candidates:
        return None
    other = min(
        candidates,
        key=lambda r: (len(words & set(r.instruction.casefold().split())), r.id),
    )
    fake = recipe.model_copy(update={"name": other.name, "instruction": other.instruction})
    return fake, case


def contrastive_aligned(recipe_id: str, alignment: Mapping[str, PanelDecision]) -> bool:
    """Aligned: the panel accepted the recipe and did not accept its mirror (if it has one)."""
    decision = alignment.get(recipe_id)
    if decision is None or decision.decision is not Decision.yes:
        return False
    mirrored = alignment.get(mirror_id(recipe_id))
    return mirrored is None or mirrored.decision is not Decision.yes


def case_controls(
    recipes: list[Recipe],
    rejected: Mapping[str, object],
    first_cases: Mapping[str, Case | None],
    first_examples: Mapping[str, int],
    examples: list[dict[str, str]],
    scored_field: str,
) -> list[Control]:
    """The realization controls of a suite: (subject id, recipe shown, case shown).

    For every candidate recipe no guard rejected, its `recipe` kinds' controls (written from
    the example its first case is written from: `first_examples`, recipe id -> example
    index); for every tested family with a usable first case (`first_cases`: recipe id ->
    case), its `family` kinds' controls.
    """
    planned = [
        control
        for seq, recipe in enumerate(recipes)
        if recipe.id not in rejected
        for control in recipe_controls(
            seq, recipe, first_examples[recipe.id], examples, scored_field, recipes
        )
    ]
    by_id = {recipe.id: (seq, recipe) for seq, recipe in enumerate(recipes)}
    for recipe_id, case in first_cases.items():
        if case is not None:
            seq, recipe = by_id[recipe_id]
            planted = _planting(
                seq, recipe, first_examples[recipe_id], examples, scored_field, recipes, case
            )
            planned += _plant("family", planted)
    return planned


def _planting(
    seq: int,
    recipe: Recipe,
    example_index: int,
    examples: Iterable[dict[str, str]],
    scored_field: str,
    recipes: Iterable[Recipe],
    first_case: Case | None = None,
) -> Planting:
    return Planting(
        seq, recipe, tuple(recipes), example_index, tuple(examples), scored_field, first_case
    )


def _plant(when: str, planting: Planting) -> list[Control]:
    return [
        c for kind in CONTROL_KINDS.values() if kind.planted == when for c in kind.plant(planting)
    ]


def recipe_controls(
    seq: int,
    recipe: Recipe,
    example_index: int,
    examples: list[dict[str, str]],
    field: str,
    recipes: Iterable[Recipe] = (),
) -> list[Control]:
    """The controls a candidate recipe gets before it has cases (the `recipe` kinds': the
    faithful edit of the example its first case is written from, right answer yes)."""
    return _plant("recipe", _planting(seq, recipe, example_index, examples, field, recipes))


def family_controls(
    recipe: Recipe,
    first_case: Case,
    recipes: Iterable[Recipe],
    seq: int,
    examples: Iterable[dict[str, str]],
    field: str,
) -> list[Control]:
    """The controls a tested family gets from its first usable case (the `family` kinds':
    a no-op copy and a decoy instruction, right answer no)."""
    planting = _planting(
        seq, recipe, first_case.example_index, examples, field, recipes, first_case
    )
    return _plant("family", planting)


def rebuild(
    subject_id: str,
    recipes: list[Recipe],
    cases: Mapping[str, Case],
    examples: list[dict[str, str]],
    scored_field: str,
    first_example: Callable[[int], int],
) -> tuple[Recipe, Case] | None:
    """The recipe and case a realization control showed the panel, rebuilt by its kind (None
    where it cannot be rebuilt exactly, or for a mirror: an alignment question).
    `first_example(seq)` is the example the seq-th recipe's first case is written from."""
    parsed = parse(subject_id)
    if parsed is None or parsed[0].planted == "alignment":
        return None
    kind, shown = parsed
    seq = next((i for i, r in enumerate(recipes) if r.id == kind.recipe_of(shown)), None)
    first_case = cases.get(shown) if kind.planted == "family" else None
    if seq is None or (kind.planted == "family" and first_case is None):
        return None
    planting = _planting(
        seq, recipes[seq], first_example(seq), examples, scored_field, recipes, first_case
    )
    return next(((r, c) for s, r, c in kind.plant(planting) if s == subject_id), None)


def planted_per_recipe() -> int:
    """How many realization controls a recipe gets at most (its `recipe` and `family` kinds':
    the estimate counts their votes)."""
    return sum(kind.planted != "alignment" for kind in CONTROL_KINDS.values())


def kinds(*, negative: bool) -> tuple[str, ...]:
    """The registered kinds whose right answer is no (`negative`) or yes."""
    return tuple(name for name, kind in CONTROL_KINDS.items() if kind.negative is negative)


def right_answer(subject_id: str) -> Decision | None:
    """A control's right decision (None: not a control of a kind registered here)."""
    parsed = parse(subject_id)
    return None if parsed is None else parsed[0].right


def tally(
    alignment: Mapping[str, PanelDecision], realization: Mapping[str, PanelDecision]
) -> dict[str, tuple[int, int]]:
    """Per control kind: (items, wrong answers).

    A mirror pair is wrong when the panel accepted both the recipe and its mirror
    (one of them must be wrong); a realization control when its decision is not its right
    answer (an unresolved decision is not an acceptance, so it is wrong for a positive
    control and right for a negative one).
    """
    counts = {name: [0, 0] for name in CONTROL_KINDS}
    for mapping in (alignment, realization):
        for subject_id, decision in mapping.items():
            parsed = parse(subject_id)
            if parsed is None or (parsed[0].question is Question.alignment) != (
                mapping is alignment
            ):
                continue
            kind, shown = parsed
            accepted = decision.decision is Decision.yes
            if kind.planted == "alignment":  # wrong only beside an accepted recipe
                original = alignment.get(shown)
                accepted = accepted and original is not None and original.decision is Decision.yes
            counts[kind.name][0] += 1
            counts[kind.name][1] += accepted if kind.negative else not accepted
    return {name: (items, wrong) for name, (items, wrong) in counts.items()}


def order_checks(*decisions: Mapping[str, PanelDecision]) -> tuple[int, int]:
    """(order-checked votes, votes whose two answers disagreed) on the suite's own questions
    (a mirror replays its recipe's answers, so controls are not counted again)."""
    checks = [
        order_consistent(vote)
        for mapping in decisions
        for subject_id, decision in mapping.items()
        if not is_control(subject_id)
        for vote in decision.votes
    ]
    answered = [check for check in checks if check is not None]
    return len(answered), answered.count(False)


# ----------------------------------------------------------------- sane's own kinds


def _faithful(planting: Planting) -> tuple[Recipe, Case] | None:
    example = planting.examples[planting.example_index]
    return faithful_case(
        planting.recipe,
        f"{planting.recipe.id}/case-0",
        planting.example_index,
        example,
        example[planting.scored_field],
        faithful_edit(planting.seq),
    )


def _noop(planting: Planting) -> tuple[Recipe, Case] | None:
    assert planting.first_case is not None
    if not changes_something(planting.recipe):
        return None
    return planting.recipe, noop_case(planting.recipe, planting.first_case, planting.scored_field)


def _decoy(planting: Planting) -> tuple[Recipe, Case] | None:
    assert planting.first_case is not None
    return decoy(planting.recipe, planting.first_case, planting.recipes)


MIRROR = register_control_kind(
    ControlKind(
        name="mirror",
        question=Question.alignment,
        right=Decision.no,
        planted="alignment",
        summary="the recipe with its relation's direction flipped (wrong when both are accepted)",
    )
)
NOOP = register_control_kind(
    ControlKind(
        name="noop",
        question=Question.realization,
        right=Decision.no,
        planted="family",
        summary="a real case whose variants are all the original text",
        build=_noop,
    )
)
DECOY = register_control_kind(
    ControlKind(
        name="decoy",
        question=Question.realization,
        right=Decision.no,
        planted="family",
        summary="a real case asked whether it realizes another recipe's instruction",
        build=_decoy,
    )
)
FAITHFUL = register_control_kind(
    ControlKind(
        name="faithful",
        question=Question.realization,
        right=Decision.yes,
        planted="recipe",
        summary="an example edited by code exactly as a plain instruction says",
        build=_faithful,
    )
)
