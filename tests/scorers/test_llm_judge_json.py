"""`reply: json` judges answer through the real LLM layer's constrained, validated JSON path."""

from __future__ import annotations

from pathlib import Path

import pytest

from sane.errors import InputError, LLMError
from sane.llm import LLMClient, LLMSettings
from sane.records import ScorerSpec
from sane.scorers import build_target
from sane.scorers.base import BuildContext
from sane.target_kind import target_config

RECORD = {"source": "The cat sat on the mat.", "summary": "A cat sat."}


def _judge(spec: ScorerSpec, tmp_path: Path, rules: str, **extra: object):
    script = tmp_path / "rules.yaml"
    script.write_text(rules)
    llm = LLMClient(LLMSettings(cache_path=tmp_path / "c.db", script_path=script, backoff_s=0))
    config = target_config(name="j", kind="llm_judge", model="scripted", reply="json", **extra)
    return build_target(config, BuildContext(spec=spec, base_dir=tmp_path, llm=llm))


async def test_json_reply_inside_the_contract(spec: ScorerSpec, tmp_path: Path) -> None:
    target = _judge(spec, tmp_path, "rules:\n  - {task: 'judge:j', response: {score: 4}}\n")
    assert await target.score(RECORD) == 4.0


async def test_json_reply_outside_the_contract_is_an_error(
    spec: ScorerSpec, tmp_path: Path
) -> None:
    target = _judge(spec, tmp_path, "rules:\n  - {task: 'judge:j', response: {score: 9}}\n")
    with pytest.raises(LLMError, match="schema-invalid"):
        await target.score(RECORD)


def test_unknown_reply_mode_names_the_field(spec: ScorerSpec, tmp_path: Path) -> None:
    import yaml

    from sane.inputs import load_spec

    target = {"name": "j", "kind": "llm_judge", "model": "scripted", "reply": "xml"}
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(spec.model_dump(mode="json") | {"targets": [target]}))
    with pytest.raises(InputError, match=r"targets\.j\.reply: Input should be 'text' or 'json'"):
        load_spec(path)
