"""Structured output: instruction, parsing, the repair loop and its exhaustion."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import BaseModel

from sane.errors import LLMError
from sane.llm import LLMClient
from sane.llm._structured import SchemaInvalid, parse

MESSAGES = [{"role": "user", "content": "Recipe id: r2. Is the recipe aligned?"}]


class Verdict(BaseModel):
    decision: Literal["yes", "no"]
    rationale: str


def test_parse_tolerates_fences_and_prose() -> None:
    fenced = 'Sure:\n```json\n{"decision": "yes", "rationale": "ok"}\n```\nDone.'
    assert parse(fenced, Verdict).decision == "yes"
    prose = 'Answer: {"decision": "no", "rationale": "x"} -- end'
    assert parse(prose, Verdict).decision == "no"
    with pytest.raises(SchemaInvalid) as info:
        parse('{"decision": "maybe"}', Verdict)
    assert any("decision" in p for p in info.value.problems)
    assert any("rationale" in p for p in info.value.problems)


async def test_repair_feeds_the_error_back_and_succeeds(
    write_script, settings_for, records
) -> None:
    # The valid answer is only given when the repair turn quotes the validation error.
    script = write_script(
        {
            "rules": [
                {
                    "task": "align_recipe",
                    "contains": ["Recipe id: r2", "decision: Input should be 'yes' or 'no'"],
                    "response": {"decision": "no", "rationale": "fixed"},
                },
                {
                    "task": "align_recipe",
                    "contains": "Recipe id: r2",
                    "response": {"decision": "maybe", "rationale": "unsure"},
                },
            ]
        }
    )
    client = LLMClient(settings_for(script_path=script), on_call=records.append)
    verdict = await client.structured("scripted", MESSAGES, Verdict, task="align_recipe")
    assert verdict == Verdict(decision="no", rationale="fixed")
    assert len(records) == 2 and len({r.key for r in records}) == 2
    assert client.calls_made == 2

    replayed: list = []
    again = LLMClient(client._settings, on_call=replayed.append)
    assert await again.structured("scripted", MESSAGES, Verdict, task="align_recipe") == verdict
    assert [r.cached for r in replayed] == [True, True] and again.calls_made == 0
    client.close()
    again.close()


async def test_exhausted_repairs_raise_llm_error(write_script, settings_for, records) -> None:
    # three different invalid replies: the first, the answer to one repair, to two repairs
    rules = [
        {"task": "judge", "contains": "still no JSON", "response": "no JSON, third try"},
        {"task": "judge", "contains": "could not be used", "response": "still no JSON"},
        {"task": "judge", "response": "no JSON here"},
    ]
    script = write_script({"rules": rules})
    client = LLMClient(settings_for(script_path=script, repair_retries=2), on_call=records.append)
    with pytest.raises(LLMError) as info:
        await client.structured("scripted", MESSAGES, Verdict, task="judge")
    assert info.value.model == "scripted"
    assert info.value.cause.startswith("schema-invalid output after 3 attempts:")
    assert "json" in info.value.cause.lower() and "same reply" not in info.value.cause
    assert len(records) == 3 and all(r.error is None for r in records)
    client.close()


async def test_a_repair_answered_with_the_same_reply_is_not_tried_again(
    write_script, settings_for, records
) -> None:
    script = write_script({"rules": [{"task": "judge", "response": "no JSON here"}]})
    client = LLMClient(settings_for(script_path=script, repair_retries=5), on_call=records.append)
    with pytest.raises(LLMError) as info:
        await client.structured("scripted", MESSAGES, Verdict, task="judge")
    assert info.value.cause.startswith("schema-invalid output after 2 attempts:")
    assert info.value.cause.endswith("the repair got the same reply back")
    assert len(records) == 2  # the first reply and its one repair, not six calls
    client.close()


async def test_instruction_carries_the_schema(write_script, settings_for) -> None:
    script = write_script(
        {
            "rules": [
                {
                    "contains": ['"rationale"', "JSON schema"],
                    "response": {"decision": "yes", "rationale": "schema seen"},
                }
            ]
        }
    )
    client = LLMClient(settings_for(script_path=script))
    verdict = await client.structured("scripted/any", MESSAGES, Verdict, task="t")
    assert verdict.rationale == "schema seen"
    client.close()
