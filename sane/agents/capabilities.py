"""Capability agent: what must this particular scorer be able to do?"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING

import yaml

from sane.agents._drafts import AgentCall, capability_list
from sane.prompts import messages
from sane.records import Capability, Example, RunConfig, ScorerSpec

if TYPE_CHECKING:  # the client (litellm) loads when a run starts, not on import
    from sane.llm import LLMClient

PROMPT_EXAMPLES = 4


@lru_cache(maxsize=1)
def requirement_meanings() -> dict[str, str]:
    text = resources.files("sane.prompts").joinpath("requirements.yaml").read_text("utf-8")
    return dict(yaml.safe_load(text))


def capabilities_call(spec: ScorerSpec, examples: list[Example], config: RunConfig) -> AgentCall:
    """The one call that derives a spec's capabilities."""
    prompt = messages(
        "capabilities.j2",
        spec=spec,
        requirements=requirement_meanings(),
        examples=examples[:PROMPT_EXAMPLES],
        limit=config.max_capabilities,
    )
    return AgentCall("capabilities", prompt, capability_list(config.max_capabilities))


async def derive_capabilities(
    llm: LLMClient, spec: ScorerSpec, examples: list[Example], config: RunConfig
) -> list[Capability]:
    call = capabilities_call(spec, examples, config)
    result = await llm.structured(
        config.model,
        call.prompt,
        call.schema,
        task=call.task,
        shape_shown=True,  # the prompt ends with `Return {...}`
        temperature=config.temperature,
        seed=config.seed,
    )
    drafts = result.capabilities[: config.max_capabilities]
    return [
        Capability(id=f"cap-{i}", name=d.name, description=d.description, requirement=d.requirement)
        for i, d in enumerate(drafts, start=1)
    ]
