"""Every agent prompt ends with the shape of its reply.

The agents call `structured(..., shape_shown=True)`: a provider that enforces the schema
by itself (the embedded runtime's grammar) is then not sent the schema's text, so the
prompt's own `Return {...}` line is all the model reads of the reply's shape.
"""

from __future__ import annotations

import pytest

from sane.agents import capabilities_call, case_call, recipes_call
from sane.inputs import examples_path, load_examples, load_spec
from sane.pipeline.estimate import _representatives
from sane.pipeline.run_config import run_config


@pytest.fixture(scope="module")
def calls():
    spec, path = load_spec("builtin:faithfulness")
    examples = load_examples(spec, examples_path(spec, path, None))
    config = run_config(model="scripted/any", max_capabilities=3, recipes_per_capability=2)
    capability, recipe, _, _ = _representatives(spec, examples)
    return [
        capabilities_call(spec, examples, config),
        recipes_call(spec, capability, config),
        case_call(spec, recipe, 0, examples[0]),
    ]


def test_each_agent_prompt_ends_with_its_replys_fields(calls):
    for call in calls:
        last = call.prompt[-1]["content"].splitlines()[-1]
        assert last.startswith("Return {"), (call.task, last)
        schema = call.schema.model_json_schema()
        for field in schema["properties"]:  # the optional ones too: a case writer's decline
            assert f'"{field}"' in last, (call.task, field)


def test_the_capability_list_asks_for_up_to_the_limit(calls):
    """Without the schema's `maxItems` in front of it, the embedded model stopped at one
    capability when the prompt's shape showed a one-item list."""
    last = calls[0].prompt[-1]["content"].splitlines()[-1]
    assert ", ...]}" in last and "up to 3 capabilities" in last
