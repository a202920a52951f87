"""sane.llm._price_list reads litellm's own price file and default tokenizer without
importing litellm; these tests hold it to litellm's answers, so a faster dry run is never a
different one."""

from __future__ import annotations

import litellm
import pytest

from sane.inputs import examples_path, load_examples, load_spec
from sane.llm import ensure_litellm_ready
from sane.llm._budget import price
from sane.llm._price_list import count_tokens, rates
from sane.pipeline.estimate import _plan
from sane.pipeline.run_config import run_config

PRICED = ["gpt-4o-mini", "openai/gpt-4o-mini", "gpt-4o", "openai/gpt-4.1", "gpt-3.5-turbo",
          "mistral/mistral-small-latest"]  # fmt: skip


@pytest.fixture(scope="module")
def estimate_prompts() -> list[list[dict[str, str]]]:
    """Every distinct prompt a dry run of builtin:faithfulness prices."""
    spec, spec_path = load_spec("builtin:faithfulness")
    examples = load_examples(spec, examples_path(spec, spec_path, None))
    stages, _ = _plan(spec, examples, run_config(model="openai/gpt-4o-mini"))
    return [prompt for stage in stages for prompt in stage.prompts]


@pytest.mark.parametrize("model", PRICED)
def test_rates_are_litellms_prices(model: str) -> None:
    ensure_litellm_ready()
    ours = rates(model)
    assert ours is not None
    assert (ours[0] * 1000, ours[1] * 100) == pytest.approx(
        litellm.cost_per_token(model=model, prompt_tokens=1000, completion_tokens=100)
    )
    assert price(model, 1000, 100) == pytest.approx(ours[0] * 1000 + ours[1] * 100)


@pytest.mark.parametrize(
    "model", ["nosuch/model", "gpt-4o-mini-but-not-really", "anthropic/gpt-4o"]
)
def test_a_model_the_file_lacks_has_no_rates(model: str) -> None:
    """Not in the file, or in it under another provider: litellm decides, not a guess."""
    assert rates(model) is None


@pytest.mark.parametrize("model", ["openai/gpt-4o-mini", "gpt-3.5-turbo", "openai/gpt-4.1",
                                   "mistral/mistral-small-latest", "gemini/gemini-1.5-flash"])  # fmt: skip
def test_counts_match_litellms_default_counter_on_the_estimates_prompts(
    model: str, estimate_prompts: list[list[dict[str, str]]]
) -> None:
    """Each model's encoding as litellm picks it (o200k_base for gpt-4o and later, cl100k_base for gpt-3.5 and for other providers)."""
    ensure_litellm_ready()
    assert len(estimate_prompts) >= 5
    for prompt in estimate_prompts:
        ours = count_tokens(model, prompt)
        theirs = litellm.token_counter(model=model, messages=prompt)
        assert ours is not None and theirs > 100
        assert abs(ours - theirs) <= max(3, 0.01 * theirs), (ours, theirs)


def test_short_messages_count_exactly_as_litellm() -> None:
    ensure_litellm_ready()
    for n in (1, 2, 5):
        messages = [{"role": "user", "content": f"hello world number {i}"} for i in range(n)]
        assert count_tokens("gpt-4o", messages) == litellm.token_counter(
            model="gpt-4o", messages=messages
        )


@pytest.mark.parametrize(
    "model", ["anthropic/claude-3-5-sonnet-20241022", "deepseek/deepseek-chat", "groq/llama-3.1-8b"]
)
def test_models_with_their_own_tokenizer_are_left_to_litellm(model: str) -> None:
    assert count_tokens(model, [{"role": "user", "content": "hi"}]) is None
