"""The local scorers' logic with the models replaced by small fakes (fast)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sane.errors import InputError, LLMError, ScorerError
from sane.records import ScorerSpec
from sane.scorers import local_bertscore, local_embedding, local_entailment, local_likelihood
from sane.scorers.base import BuildContext, build_target
from sane.target_kind import target_config

SPEC = ScorerSpec(
    name="faithfulness",
    criterion="every claim is supported by the source",
    fields={"source": "the document", "summary": "the text scored"},
    scored_field="summary",
    output={"type": "ordinal", "min": 1, "max": 5},
)


def _context(llm: object | None = None) -> BuildContext:
    return BuildContext(spec=SPEC, base_dir=Path("."), llm=llm)  # type: ignore[arg-type]


def _target(metric: str, llm: object | None = None, **extra: object):
    config = target_config(
        name="t", kind="builtin", metric=metric, reference_field="source", **extra
    )
    return build_target(config, _context(llm))


@pytest.mark.parametrize(
    "metric", ["embed_minilm", "embed_mpnet", "bertscore_minilm", "likelihood_gem"]
)
def test_reference_field_is_required_and_checked(metric):
    missing = target_config(name="t", kind="builtin", metric=metric)
    with pytest.raises(InputError, match=r"targets\.t\.reference_field"):
        build_target(missing, _context())
    unknown = target_config(name="t", kind="builtin", metric=metric, reference_field="nope")
    with pytest.raises(InputError, match="not one of fields"):
        build_target(unknown, _context())


async def test_embedding_cosine_encodes_each_text_once(monkeypatch):
    vectors = {"a": [1.0, 0.0], "b": [0.0, 1.0], "c": [-1.0, 0.0]}
    calls: list[list[str]] = []

    def fake_encode(name: str, texts: list[str]) -> np.ndarray:
        calls.append(texts)
        assert name == "all-minilm-l6-v2"
        return np.array([vectors[t] for t in texts])

    monkeypatch.setattr(local_embedding, "encode", fake_encode)
    target = _target("embed_minilm")
    records = [{"summary": s, "source": "a"} for s in ("a", "b", "c")]
    assert await target.score_batch(records) == [1.0, 0.0, -1.0]
    assert calls == [["a", "b", "c"]]
    assert target.contract.min == -1.0 and target.fields == ("summary", "source")


async def test_a_value_outside_the_contract_is_an_error(monkeypatch):
    monkeypatch.setattr(
        local_embedding, "encode", lambda name, texts: np.full((len(texts), 1), 2.0)
    )
    with pytest.raises(ScorerError, match="outside its contract"):
        await _target("embed_mpnet").score({"summary": "x", "source": "y"})


async def test_a_record_without_the_reference_is_an_error():
    with pytest.raises(ScorerError, match="lacks field"):
        await _target("embed_minilm").score({"summary": "x"})


def test_greedy_f1():
    eye = np.eye(3)
    assert local_bertscore.greedy_f1(eye, eye) == pytest.approx(1.0)
    assert local_bertscore.greedy_f1(eye[:1], eye[1:]) == 0.0
    half = local_bertscore.greedy_f1(eye[:1], eye[:2])  # P = 1, R = 1/2
    assert half == pytest.approx(2 / 3)
    assert local_bertscore.greedy_f1(np.zeros((0, 3)), eye) == 0.0
    with pytest.raises(ScorerError):
        local_bertscore.greedy_f1(np.zeros((0, 3)), np.zeros((0, 3)))


async def test_gem_is_squashed_per_token_pmi(monkeypatch):
    def fake_logprobs(prefix: str, continuation: str, *, model: str) -> list[float]:
        assert continuation == " the reference" and model == "gemma3-270m"
        return [-1.0, -1.0] if "good" in prefix else [-2.0, -2.0]

    monkeypatch.setattr(local_likelihood, "continuation_logprobs", fake_logprobs)
    target = _target("likelihood_gem")
    scores = await target.score_batch(
        [{"summary": "good", "source": "the reference"}, {"summary": "", "source": "the reference"}]
    )
    assert scores == [pytest.approx(local_likelihood.squash(1.0)), pytest.approx(0.5)]
    assert local_likelihood.squash(-3) < local_likelihood.squash(0) < local_likelihood.squash(3)


class FakeLLM:
    """Supports a statement when its words all occur in the source; records each call."""

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.calls: list[dict[str, object]] = []

    async def structured(
        self, model, messages, schema, *, task, sample_index=0, temperature=None, max_tokens=None
    ):
        self.calls.append({"model": model, "task": task, "sample_index": sample_index})
        if self.fail:
            raise LLMError(model, "provider down")
        user = messages[-1]["content"]
        source = user.split("<<<")[1].split(">>>")[0].lower()
        statement = user.split("<<<")[2].split(">>>")[0].strip().rstrip(".").lower()
        supported = all(word in source for word in statement.split())
        return schema(evidence="none", supported=supported)


async def test_entailment_is_the_supported_fraction():
    llm = FakeLLM()
    target = _target("statement_entailment", llm=llm)
    record = {
        "source": "the cat sat on the mat near the door",
        "summary": "The cat sat on the mat. The dog barked loudly. The cat sat near the door.",
    }
    assert await target.score(record, repeat=2) == pytest.approx(2 / 3)
    assert {c["task"] for c in llm.calls} == {"entail:t"}
    assert {c["sample_index"] for c in llm.calls} == {2}
    assert {c["model"] for c in llm.calls} == {"local/qwen2.5-coder-1.5b"}


async def test_entailment_model_can_be_overridden():
    llm = FakeLLM()
    target = _target("statement_entailment", llm=llm, model="openai/gpt-4o-mini")
    await target.score({"source": "a b", "summary": "a b."})
    assert llm.calls[0]["model"] == "openai/gpt-4o-mini"


async def test_entailment_errors_are_errors_not_scores():
    with pytest.raises(LLMError):
        await _target("statement_entailment", llm=FakeLLM(fail=True)).score(
            {"source": "x", "summary": "A claim."}
        )
    with pytest.raises(ScorerError, match="no sentence"):
        await _target("statement_entailment", llm=FakeLLM()).score({"source": "x", "summary": "  "})
    with pytest.raises(InputError, match="needs an LLM client"):
        _target("statement_entailment", llm=None)


def test_sentence_split():
    assert local_entailment.split_sentences("Dr. Smith arrived. He left at 5 p.m. today!") == [
        "Dr. Smith arrived.",
        "He left at 5 p.m. today!",
    ]
