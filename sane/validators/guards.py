"""Validity guards in code: what the oracle panel must never be trusted to decide.

A small oracle model says "yes" to almost anything, so the checks that need no
judgement are made here, deterministically, before the panel is asked and
again wherever validity is counted (so a suite voted before a guard existed is
judged by it too):

- a recipe is **repaired** when its relation kind belongs to another
  requirement (a contradiction recipe filed under subadditivity is a
  monotonicity test) or when it lists variant roles its relation never reads;
- a recipe is **rejected** when its instruction changes nothing ("replace
  'fact' with 'fact'") or when it repeats an earlier recipe;
- a case is **rejected** when a variant that must differ from another (the
  perturbed text from the original, a series level from the next) is the same
  text (after normalising whitespace and case where the relation predicts a
  score change): such a case can only produce a fault where nothing changed;
  and a case its writer **declined** (the recipe does not apply to the example:
  no number to change) is counted beside them, never put to the panel.

Each guard has a name; the report counts its hits under `validity.guards`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from sane.records import Case, Recipe, relation_roles
from sane.relations import kind_of

DUPLICATE_JACCARD = 0.9  # content-word overlap of two instructions from which they are one recipe
# Words that do not make two instructions different ("add a claim" = "add one claim").
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "one",
        "some",
        "any",
        "of",
        "in",
        "on",
        "at",
        "to",
        "into",
        "for",
        "from",
        "by",
        "with",
        "and",
        "or",
        "its",
        "it",
        "this",
        "that",
        "these",
        "those",
        "is",
        "are",
        "be",
        "as",
        "text",
    ]
)

_WORD = re.compile(r"[a-z0-9']+")
_SAME_REPLACEMENT = re.compile(
    r"\b(?:replace|substitute|swap|change|turn|rename)\s+(?P<a>.+?)\s+(?:with|by|to|into|for)\s+"
    r"(?P<b>.+?)\s*(?:[.;,!]|$|\s+in\s|\s+throughout|\s+everywhere|\s+wherever)",
    re.IGNORECASE,
)
_FILLER = re.compile(r"\b(?:the|a|an|word|words|phrase|term|token|string)\b|['\"`‘’“”]")


# What each guard's count means, in the words the reports print.
GUARD_TEXT = {
    "requirement_refiled": "recipes refiled under the requirement their relation tests",
    "unused_roles_dropped": "recipes whose unused variant roles were dropped",
    "recipe_no_op": "recipes rejected: the instruction changes nothing",
    "recipe_duplicate": "recipes rejected: a repeat of an earlier recipe",
    "case_no_op": "cases rejected: variants that must differ are the same text",
    "case_not_applicable": "cases declined by their writer: the recipe does not apply to the "
    "example",
}


def guard_text(name: str) -> str:
    return GUARD_TEXT.get(name, name.replace("_", " "))


def normalise(text: str) -> str:
    """Case and whitespace do not make two texts different."""
    return " ".join(text.casefold().split())


# ------------------------------------------------------------------- recipes


def repair_recipe(recipe: Recipe) -> Recipe:
    """The recipe with its requirement and variant roles made to fit its relation.

    Each repair is written into `recipe.repairs` with its reason, so reports can
    show what code changed and count it.
    """
    repairs = list(recipe.repairs)
    update: dict[str, object] = {}
    kind = kind_of(recipe.relation)
    if recipe.requirement not in kind.requirements:
        home = kind.home
        update["requirement"] = home
        repairs.append(
            f"requirement_refiled: a '{kind.name}' relation tests {home.value}, "
            f"not {recipe.requirement.value}"
        )
    used = relation_roles(recipe.relation)
    unused = [role for role in recipe.variant_roles if role not in used]
    if unused:
        update["variant_roles"] = [role for role in recipe.variant_roles if role in used]
        repairs.append(f"unused_roles_dropped: the relation never reads {unused}")
    if not update:
        return recipe
    return recipe.model_copy(update={**update, "repairs": repairs})


def _no_op_instruction(recipe: Recipe) -> str | None:
    for match in _SAME_REPLACEMENT.finditer(recipe.instruction):
        a, b = (normalise(_FILLER.sub(" ", match.group(g))) for g in ("a", "b"))
        if a and a == b:
            return f"the instruction replaces '{a}' with itself: it changes nothing"
    return None


def _words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.casefold())) - _STOPWORDS


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


RecipeGuard = Callable[[Recipe], str | None]
RECIPE_GUARDS: dict[str, RecipeGuard] = {"recipe_no_op": _no_op_instruction}


def recipe_rejections(recipes: Iterable[Recipe]) -> dict[str, tuple[str, str]]:
    """Rejected recipes: id -> (guard, reason). Of near-duplicates the first one stays."""
    rejected: dict[str, tuple[str, str]] = {}
    kept: list[tuple[Recipe, frozenset[str]]] = []
    for recipe in recipes:
        for guard, check in RECIPE_GUARDS.items():
            reason = check(recipe)
            if reason:
                rejected[recipe.id] = (guard, reason)
                break
        if recipe.id in rejected:
            continue
        words = _words(recipe.instruction)
        twin = next(
            (
                other
                for other, other_words in kept
                if other.relation.kind == recipe.relation.kind
                and _jaccard(words, other_words) >= DUPLICATE_JACCARD
            ),
            None,
        )
        if twin is not None:
            rejected[recipe.id] = (
                "recipe_duplicate",
                f"repeats recipe {twin.id} ({twin.name!r})",
            )
            continue
        kept.append((recipe, words))
    return rejected


# --------------------------------------------------------------------- cases


def case_rejection(recipe: Recipe, case: Case) -> tuple[str, str] | None:
    """(guard, reason) when a case cannot test its relation; None when it can. A case its
    writer declined (the example has nothing the recipe can change) is counted here too, so
    that every count of cases not put to the panel reads one rule (`usable`)."""
    if case.not_applicable:
        return ("case_not_applicable", f"not applicable: {case.not_applicable}")
    # A relation that predicts a score change needs a change that can matter: whitespace and
    # case alone do not count. One that predicts no change (invariant, no_increase,
    # no_decrease) may be testing exactly such a change, so only the same bytes are a no-op.
    same = normalise if kind_of(recipe.relation).changes_score else str
    texts = {role: same(text) for role, text in case.variants.items()}
    for x, y in recipe.relation.must_differ():
        if x in texts and y in texts and texts[x] == texts[y]:
            return ("case_no_op", f"variants '{x}' and '{y}' are the same text")
    return None


def guarded_cases(recipes: Iterable[Recipe], cases: Iterable[Case]) -> dict[str, tuple[str, str]]:
    """Rejected cases of the given recipes: case id -> (guard, reason)."""
    by_id = {recipe.id: recipe for recipe in recipes}
    rejected = {}
    for case in cases:
        recipe = by_id.get(case.recipe_id)
        finding = case_rejection(recipe, case) if recipe is not None else None
        if finding is not None:
            rejected[case.id] = finding
    return rejected


def usable(recipe: Recipe, case: Case) -> bool:
    """A case the agent wrote and no guard rejects: the only kind put to the panel. The one
    place this rule lives (the live recipe flows and the recovery stages both ask it)."""
    return case.error is None and case_rejection(recipe, case) is None


def first_usable(recipe: Recipe, cases: Iterable[Case]) -> Case | None:
    """The usable case with the lowest index: the one a family's planted controls copy."""
    return next((c for c in sorted(cases, key=lambda c: c.index) if usable(recipe, c)), None)
