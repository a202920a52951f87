"""The ``library:PATH`` generator: derived recipes plus validated recipes of related scorers.

SANE section 6 proposes a retrieval library of validated recipes reused across related
scorers. This generator derives capabilities and recipes as the ``derived`` generator does,
then adds up to ``max_capabilities`` reused recipes: validated recipes of the *other*
scorers in the library (:class:`sane.suites.recipe_library.RecipeLibrary`), taken from the scorer
whose criterion is most similar to the new spec's first. Each reused recipe arrives as a
capability of its own (``cap-lib-N``, named after the recipe and its source scorer) with
one recipe whose ``generator`` is ``library:<scorer>``. Reused recipes are candidates like
any other: they go through the alignment panel, case generation and the case panel.

The source of a reused recipe is written into its capability's description
(``[library recipe KEY from SCORER]``), so the recipes stage (run separately, perhaps on a
resumed run) finds it again by key, not by position.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from sane.errors import InputError
from sane.generators.base import OPTION, register_generator
from sane.generators.derived import DerivedGenerator
from sane.records import Capability, Example, Recipe, RunConfig, ScorerSpec

if TYPE_CHECKING:  # the client (litellm) loads when a run starts, not on import
    from sane.llm import LLMClient

CAPABILITY_PREFIX = "cap-lib-"
_SOURCE = re.compile(r"\[library recipe (?P<key>[0-9a-f]+) from (?P<scorer>[^\]]+)\]")


def related_scorers(criteria: dict[str, str], spec: ScorerSpec) -> list[str]:
    """Other scorers of the library, most similar criterion first (lexical/embedding)."""
    from sane.similarity import choose_similarity

    others = [name for name in criteria if name != spec.name]
    if not others:
        return []
    _, similarity, _ = choose_similarity("auto")
    sims = similarity([spec.criterion], [criteria[name] for name in others])[0]
    return [name for _, name in sorted(zip(-sims, others, strict=True))]


class LibraryGenerator:
    """Derived capabilities and recipes, plus reused validated recipes from a library."""

    def __init__(self, path: str) -> None:
        from sane.suites.recipe_library import RecipeLibrary

        self.name = f"library:{path}"
        self.path = path
        self.base = DerivedGenerator()
        RecipeLibrary(path).close()  # a missing or broken library is bad input, up front

    def _library(self):
        from sane.suites.recipe_library import RecipeLibrary

        return RecipeLibrary(self.path)

    async def capabilities(
        self, llm: LLMClient, spec: ScorerSpec, examples: list[Example], config: RunConfig
    ) -> list[Capability]:
        derived = await self.base.capabilities(llm, spec, examples, config)
        library = self._library()
        try:
            reused = library.recipes(related_scorers(library.criteria(), spec))
        finally:
            library.close()
        extra = [
            Capability(
                id=f"{CAPABILITY_PREFIX}{i}",
                name=f"{item.recipe.name} (reused from {item.scorer})",
                description=f"{item.capability_description or item.capability} "
                f"[library recipe {item.key} from {item.scorer}]",
                requirement=item.recipe.requirement,
            )
            for i, item in enumerate(reused[: config.max_capabilities], start=1)
        ]
        return derived + extra

    async def recipes(
        self, llm: LLMClient, spec: ScorerSpec, capability: Capability, config: RunConfig
    ) -> tuple[list[Recipe], list[str]]:
        if not capability.id.startswith(CAPABILITY_PREFIX):
            recipes, rejected = await self.base.recipes(llm, spec, capability, config)
            return [r.model_copy(update={"generator": "derived"}) for r in recipes], rejected
        source = _SOURCE.search(capability.description)
        library = self._library()
        try:
            item = library.recipe(source["key"]) if source else None
        finally:
            library.close()
        if item is None:
            return [], [f"{capability.id}: its library recipe is no longer in {self.path}"]
        recipe = item.recipe.model_copy(
            update={
                "id": f"{capability.id.replace('cap', 'rec')}-1",
                "capability_id": capability.id,
                "generator": f"library:{item.scorer}",
            }
        )
        return [recipe], []


@register_generator("library", lister=lambda: ["library:PATH"])
def _library(argument: str | None) -> LibraryGenerator:
    if not argument:
        raise InputError(None, OPTION, "the library generator needs a file: library:PATH")
    return LibraryGenerator(argument)
