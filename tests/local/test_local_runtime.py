"""The embedded runtime as sane uses it: long prompts, prefix reuse, both chat models, a judge,
the context limit, and a small pipeline whose two cold runs must give the same suite."""

from __future__ import annotations

import ctypes
import json
import math
import random
from pathlib import Path

import pytest

from sane import api
from sane.errors import LLMError
from sane.inputs import load_spec
from sane.llm import LLMClient, LLMSettings
from sane.local import llama
from sane.local.prefix_states import GRAIN, Layout
from sane.scorers.base import BuildContext, build_target
from sane.suites.content import content_differences, suite_content

pytestmark = pytest.mark.local_models

QWEN = "local/qwen2.5-coder-1.5b"
VOTE_SCHEMA = {
    "type": "object",
    "properties": {"rationale": {"type": "string"}, "decision": {"enum": ["yes", "no"]}},
    "required": ["rationale", "decision"],
}
CITIES = ["Lisbon", "Oslo", "Quito", "Hanoi", "Lagos", "Perth", "Lima", "Riga", "Cairo", "Dakar"]


def _inventory(items: int = 90) -> str:
    """Inventory lines, about 13 tokens each (90: about 1,200 tokens); one names a purple umbrella.

    Only the long-prompt test needs the long one: the others ask the same questions of a
    short one, which costs a third of the CPU time on a 2-core machine."""
    lines = [
        f"Item {i}: a {['red', 'green', 'blue', 'grey'][i % 4]} "
        f"{['chair', 'lamp', 'kettle', 'rug', 'clock'][i % 5]} stored in {CITIES[i % 10]}."
        for i in range(items)
    ]
    lines.insert(items * 2 // 3, "Item 999: a purple umbrella stored in Reykjavik.")
    return "\n".join(lines)


SHORT = 24  # inventory lines: about 330 tokens, over two evaluation blocks


def _messages(question: str, items: int) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": "Answer from the inventory below.\n" + _inventory(items)},
        {"role": "user", "content": question},
    ]


def _ask(question: str, items: int = SHORT, **kwargs: object) -> llama.LocalCompletion:
    return llama.chat(QWEN, _messages(question, items), **kwargs)  # type: ignore[arg-type]


def test_a_long_prompt_runs_through_the_real_model_and_is_read():
    """Over 1,000 prompt tokens: the size that crashed native AMX builds with SIGILL."""
    question = "In which city is the purple umbrella stored? Answer in one word."
    reply = _ask(question, items=90, max_tokens=8)
    assert reply.prompt_tokens > 1000
    assert "reykjavik" in reply.text.lower()


def test_prefix_reuse_changes_no_token_and_skips_the_shared_prefix():
    model = llama.load(QWEN)
    question = "Is there a blue lamp in Oslo? Answer as JSON."
    kwargs = {"json_schema": VOTE_SCHEMA, "temperature": 0.7, "seed": 11, "max_tokens": 48}
    model.forget()
    cold = _ask(question, **kwargs)
    assert cold.reused_tokens == 0
    again = _ask(question, **kwargs)  # a second vote on the same prompt: no prefill at all
    assert again.reused_tokens == again.prompt_tokens - 1
    other = _ask("Is there a red rug in Lima? Answer as JSON.", **kwargs)
    assert other.reused_tokens > 300  # the shared inventory, up to where the questions part
    model.prefixes.enabled = False
    try:
        model.forget()
        fresh = _ask(question, **kwargs)
    finally:
        model.prefixes.enabled = True
    assert fresh.reused_tokens == 0
    assert cold.text == again.text == fresh.text
    json.loads(cold.text)  # the grammar still yields schema-shaped JSON


def _logits_after(model: llama.LoadedModel, tokens: list[int], steps: list[int]) -> bytes:
    import llama_cpp

    llm = model.llm
    llm._ctx.kv_cache_clear()
    llm.n_tokens = 0
    position = 0
    for stop in steps:
        llm.eval(tokens[position:stop])
        position = stop
    logits = llama_cpp.llama_get_logits_ith(llm.ctx, -1)
    return ctypes.string_at(logits, 4 * llm.n_vocab())


@pytest.mark.parametrize("name", [QWEN, "local/smollm2-135m"])
def test_any_layout_of_valid_batches_gives_bit_identical_logits(name: str):
    """The rule prefix reuse rests on, checked on the installed library and this CPU's module:
    batches of any size that is a multiple of GRAIN and at least MIN_BATCH, in any sequence,
    give the same logits to the last bit. Some layout outside the rule must differ, or the
    comparison would prove nothing: a batch of GRAIN does for Qwen's Q4_K weights; SmolLM2's
    Q4_1 under the Haswell module rounds small batches alike and differs only where tokens go
    one at a time (measured on an AVX2-only EPYC)."""
    model = llama.load(name)
    tokens, _ = llama.prompt_tokens(model.llm, [{"role": "user", "content": _inventory()}])
    tokens = tokens[:301]  # batched part 300 (three blocks), then the last token
    layout = Layout(len(tokens))
    with model.lock:
        reference = _logits_after(model, tokens, layout.steps(0))
        rng = random.Random(7)
        for _ in range(4):
            stops = {rng.randrange(GRAIN, layout.end) // GRAIN * GRAIN for _ in range(6)}
            assert _logits_after(model, tokens, layout.steps(0, stops)) == reference, stops
        outside_rule = {
            "a batch of GRAIN": [128, 128 + GRAIN, *layout.steps(128 + GRAIN)],
            "single tokens": [128, *range(129, 137), *layout.steps(136)],
        }
        differs = any(_logits_after(model, tokens, s) != reference for s in outside_rule.values())
        assert differs, "no layout outside the rule rounds differently: the test is blind"
        model.forget()  # the context no longer holds a prompt's KV in the layout


def test_a_one_choice_answer_is_read_at_the_position_after_its_opening():
    """An answer-only vote (`{"decision": "yes" or "no"}`) costs no decode step: the reply's
    opening is evaluated with the prompt and the value sampled there. At temperature 0 that is
    the value whose first token has the higher log-probability after the same opening; a
    seed gives the same value again, from a reused prefix or a fresh one."""
    schema = {
        "type": "object",
        "properties": {"decision": {"enum": ["yes", "no"], "type": "string"}},
        "required": ["decision"],
    }
    question = "Is there a purple umbrella in the inventory? Answer as JSON."
    greedy = _ask(question, json_schema=schema, temperature=0.0)
    assert greedy.completion_tokens == 2  # the value and the closing, neither decoded
    odds = llama.next_token_logprobs(
        QWEN, _messages(question, SHORT), '{"decision": "', ["yes", "no"]
    )
    assert json.loads(greedy.text) == {"decision": max(odds, key=odds.__getitem__)}
    reused = _ask(question, json_schema=schema, temperature=1.0, seed=3)
    llama.load(QWEN).forget()  # the same call again, its prompt evaluated afresh
    fresh = _ask(question, json_schema=schema, temperature=1.0, seed=3)
    assert fresh.reused_tokens == 0 and reused.reused_tokens > 0
    assert reused.text == fresh.text and json.loads(fresh.text)["decision"] in {"yes", "no"}


def test_a_prompt_over_the_context_window_is_an_error_not_a_crash():
    huge = "word " * (llama.N_CTX + 200)
    with pytest.raises(LLMError, match="context window"):
        llama.chat(QWEN, [{"role": "user", "content": huge}], max_tokens=4)


def test_next_token_logprobs_read_the_started_reply_the_same_with_reuse_or_without():
    """An oracle's answer read without sampling (experiments/oracle_logits.py): finite
    log-probabilities of the words' first tokens, and the same bits whether the prompt was
    evaluated fresh or from the KV the previous call left (the fixed layout)."""
    model = llama.load("local/smollm2-135m")
    question = [{"role": "user", "content": "Is the sky blue on a clear day? yes or no"}]
    model.forget()
    fresh = llama.next_token_logprobs("local/smollm2-135m", question, '{"answer": "', ["yes", "no"])
    again = llama.next_token_logprobs("local/smollm2-135m", question, '{"answer": "', ["yes", "no"])
    assert fresh == again
    assert all(value < 0 for value in fresh.values())
    assert sum(math.exp(v) for v in fresh.values()) <= 1.0
    assert fresh["yes"] != fresh["no"]


def test_smollm2_chats():
    reply = llama.chat(
        "local/smollm2-135m",
        [{"role": "user", "content": "Say hello in one word."}],
        max_tokens=16,
    )
    assert reply.text.strip() and reply.completion_tokens > 0


async def test_the_builtin_smollm_judge_returns_a_score_in_its_range(tmp_path: Path):
    spec, spec_path = load_spec("builtin:faithfulness")
    config = next(t for t in spec.targets if t.name == "smollm-judge")
    llm = LLMClient(LLMSettings(cache_path=tmp_path / "llm.db"))
    try:
        judge = build_target(config, BuildContext(spec=spec, base_dir=spec_path.parent, llm=llm))
        score = await judge.score(
            {
                "source": "The council approved the budget on Monday.",
                "summary": "The council approved the budget.",
            }
        )
    finally:
        llm.close()
    assert spec.output.min <= score <= spec.output.max


def _small_suite(workdir: Path, name: str) -> Path:
    suite = workdir / f"{name}.db"
    api.generate(
        workdir / "tiny_spec.yaml",
        suite=suite,
        model=QWEN,
        votes=1,
        cases=1,
        max_capabilities=1,
        recipes_per_capability=1,
        # the recipe's own vote decides: the embedded model says "yes" to a recipe and to its
        # mirror alike (docs/validity.md), and a contrastive panel then writes no case at all
        panel="plain",
        llm=LLMSettings(cache_path=workdir / f"{name}-cache.db"),
    )
    api.execute(
        suite,
        targets=["careful", "lazy"],
        llm=LLMSettings(cache_path=workdir / f"{name}-cache.db"),
        trust_suite_code=True,
    )
    return suite


def test_two_cold_runs_with_the_same_seed_give_the_same_suite(workdir: Path):
    """Fresh LLM caches and freshly loaded models: nothing is replayed, all is recomputed."""
    llama.unload_all()
    first = _small_suite(workdir, "first")
    llama.unload_all()
    second = _small_suite(workdir, "second")
    content = suite_content(first)
    # one case is enough to cover every stage that writes or decides (on a slow 2-core CPU
    # each case adds a minute to the two runs)
    assert content["recipes"] and content["cases"] and content["votes"], content
    assert content_differences(first, second) == []
