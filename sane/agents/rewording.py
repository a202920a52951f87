"""The exploit search's rewording by the agent LLM: a snippet a target rewarded, said other
ways, so the search can find a trigger phrase no catalogue holds word for word
(sane.manipulations.search takes it as its `reword`; the form check tests each rewording)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from sane.agents._drafts import AgentCall, _BoundedList, bounded
from sane.prompts import messages

if TYPE_CHECKING:  # the client (litellm) loads when a run starts, not on import
    from sane.llm import LLMClient

TASK = "reword"
REWORDINGS = 3  # per manipulation the search keeps


class RewordingList(_BoundedList):
    rewordings: list[str] = Field(min_length=1)


def reword_call(text: str, limit: int = REWORDINGS) -> AgentCall:
    """The one call that rewords one manipulation's text."""
    prompt = messages("reword_manipulation.j2", text=text, limit=limit)
    return AgentCall(TASK, prompt, bounded(RewordingList, limit))


async def reword(
    llm: LLMClient, model: str, text: str, *, seed: int, limit: int = REWORDINGS
) -> list[str]:
    """The agent's rewordings of `text`, stripped, without repeats or the text itself."""
    call = reword_call(text, limit)
    result = await llm.structured(
        model, call.prompt, call.schema, task=call.task, temperature=0.0, seed=seed
    )
    seen, out = {text.strip()}, []
    for option in (r.strip() for r in result.rewordings[:limit]):
        if option and option not in seen:
            seen.add(option)
            out.append(option)
    return out
