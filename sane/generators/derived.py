"""The default generator: capabilities and recipes derived from the spec by the agents."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sane import agents
from sane.errors import InputError
from sane.generators.base import OPTION, register_generator
from sane.records import Capability, Example, Recipe, RunConfig, ScorerSpec

if TYPE_CHECKING:  # the client (litellm) loads when a run starts, not on import
    from sane.llm import LLMClient


class DerivedGenerator:
    """SANE's own path: one structured agent call for capabilities, one per capability for
    recipes (limits from the run configuration)."""

    name = "derived"

    async def capabilities(
        self, llm: LLMClient, spec: ScorerSpec, examples: list[Example], config: RunConfig
    ) -> list[Capability]:
        return await agents.derive_capabilities(llm, spec, examples, config)

    async def recipes(
        self, llm: LLMClient, spec: ScorerSpec, capability: Capability, config: RunConfig
    ) -> tuple[list[Recipe], list[str]]:
        return await agents.derive_recipes(llm, spec, capability, config)


@register_generator("derived")
def _derived(argument: str | None) -> DerivedGenerator:
    if argument is not None:
        raise InputError(None, OPTION, "the derived generator takes no ':NAME'")
    return DerivedGenerator()
