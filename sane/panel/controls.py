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

Control decisions live beside the real ones under subject ids that start
with `control:`. The report gives the false-accept rate (negative controls the
panel accepted) and the false-reject rate (positive controls it did not
accept), each with a Wilson interval; above `MAX_FALSE_ACCEPT` or
`MAX_FALSE_REJECT` the panel has failed its controls and the suite's faults
are not evidence.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from sane.edits import FILLER, TransformError, TransformInput, apply_transform
from sane.panel.ballots import order_consistent
from sane.records import (
    Case,
    Decision,
    PairRelation,
    PanelDecision,
    Recipe,
)
from sane.relations import kind_of, mirror

PREFIX = "control:"
MAX_FALSE_ACCEPT = 0.10  # above this share of accepted negative controls, the panel fails
MAX_FALSE_REJECT = 0.50  # ...or above this share of rejected positive controls
MAX_ORDER_INCONSISTENT = 0.50  # ...or above this share of order-checked votes that disagreed


def is_control(subject_id: str) -> bool:
    return subject_id.startswith(PREFIX)


def control_kind(subject_id: str) -> str:
    return subject_id.removeprefix(PREFIX).split(":", 1)[0]


def mirror_id(recipe_id: str) -> str:
    return f"{PREFIX}mirror:{recipe_id}"


def mirrored_recipe(recipe: Recipe) -> Recipe | None:
    """The recipe claiming the opposite direction, or None when no such contradiction exists.

    Its id is the recipe's own: the panel must not be able to tell the two apart
    by anything but the claimed direction. It is stored under `mirror_id`.
    """
    flipped = mirror(recipe.relation)
    if not kind_of(recipe.relation).mirror_contradicts or flipped == recipe.relation:
        return None
    return recipe.model_copy(update={"relation": flipped})


def case_control_id(kind: str, case_id: str) -> str:
    return f"{PREFIX}{kind}:{case_id}"


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


def noop_case(recipe: Recipe, case: Case) -> Case:
    """Negative control: every variant replaced by one unchanged text (the original if any).

    Keeps the real case's id: it is stored under `case_control_id("noop", ...)`.
    """
    text = case.variants.get("original") or next(iter(case.variants.values()))
    return case.model_copy(update={"variants": {role: text for role in recipe.variant_roles}})


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


def decoy(recipe: Recipe, case: Case, others: Iterable[Recipe]) -> tuple[Recipe, Case] | None:
    """Negative control: the case with the instruction of the least similar other recipe.

    Only a recipe with the same variant roles lends its instruction: a decoy must look like
    the questions it hides among, and an instruction for two texts shown over a case of four
    is a form a reader can spot without reading what was changed."""
    words = set(recipe.instruction.casefold().split())
    candidates = [
        other
        for other in others
        if other.id != recipe.id
        and other.instruction.strip() != recipe.instruction.strip()
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


Control = tuple[str, Recipe, Case]  # (subject id, recipe shown, case shown)


def case_controls(
    recipes: list[Recipe],
    rejected: Mapping[str, object],
    first_cases: Mapping[str, Case | None],
    first_examples: Mapping[str, int],
    examples: list[dict[str, str]],
    scored_field: str,
) -> list[Control]:
    """The realization controls of a suite: (subject id, recipe shown, case shown).

    For every candidate pair recipe no guard rejected, a faithful edit of the
    example its first case is written from (`first_examples`: recipe id ->
    example index; right answer: yes); for every tested family with a usable
    first case (`first_cases`: recipe id -> case), a no-op copy and a decoy
    instruction (right answer: no).
    """
    planned = [
        control
        for seq, recipe in enumerate(recipes)
        if recipe.id not in rejected
        for control in recipe_controls(
            seq, recipe, first_examples[recipe.id], examples, scored_field
        )
    ]
    by_id = {recipe.id: recipe for recipe in recipes}
    for recipe_id, case in first_cases.items():
        if case is not None:
            planned += family_controls(by_id[recipe_id], case, recipes)
    return planned


def recipe_controls(
    seq: int, recipe: Recipe, example_index: int, examples: list[dict[str, str]], field: str
) -> list[Control]:
    """The controls a candidate recipe gets before it has cases: a faithful edit of the
    example its first case is written from (right answer: yes; pair recipes only)."""
    example = examples[example_index]
    case_id = f"{recipe.id}/case-0"
    faithful = faithful_case(
        recipe, case_id, example_index, example, example[field], faithful_edit(seq)
    )
    return [] if faithful is None else [(case_control_id("faithful", case_id), *faithful)]


def family_controls(recipe: Recipe, first_case: Case, recipes: Iterable[Recipe]) -> list[Control]:
    """The controls a tested family gets from its first usable case: a no-op copy and a
    decoy instruction (right answer: no)."""
    planned = [(case_control_id("noop", first_case.id), recipe, noop_case(recipe, first_case))]
    decoyed = decoy(recipe, first_case, recipes)
    if decoyed is not None:
        planned.append((case_control_id("decoy", first_case.id), *decoyed))
    return planned


NEGATIVE_KINDS = ("mirror", "noop", "decoy")
POSITIVE_KINDS = ("faithful",)
# a realization control's kind -> its right decision
CONTROL_RIGHT = {"noop": Decision.no, "decoy": Decision.no, "faithful": Decision.yes}


def tally(
    alignment: Mapping[str, PanelDecision], realization: Mapping[str, PanelDecision]
) -> dict[str, tuple[int, int]]:
    """Per control kind: (items, wrong answers).

    A mirror pair is wrong when the panel accepted both the recipe and its mirror
    (one of them must be wrong); a no-op or decoy case when it was accepted; a
    faithful edit when it was not (an unresolved decision is not an acceptance).
    """
    counts = {kind: [0, 0] for kind in (*NEGATIVE_KINDS, *POSITIVE_KINDS)}
    for subject_id, decision in alignment.items():
        if is_control(subject_id) and control_kind(subject_id) == "mirror":
            original = alignment.get(subject_id.split(":", 2)[2])
            counts["mirror"][0] += 1
            counts["mirror"][1] += (
                decision.decision is Decision.yes
                and original is not None
                and original.decision is Decision.yes
            )
    for subject_id, decision in realization.items():
        kind = control_kind(subject_id) if is_control(subject_id) else None
        if kind in counts:
            accepted = decision.decision is Decision.yes
            counts[kind][0] += 1
            counts[kind][1] += accepted if kind in NEGATIVE_KINDS else not accepted
    return {kind: (items, wrong) for kind, (items, wrong) in counts.items()}


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
