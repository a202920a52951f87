"""A local judge cannot answer outside its output contract (issue 55, item 3): the reply's
schema lists an ordinal contract's scores, which a llama.cpp grammar enforces (it ignores
`minimum`/`maximum`: SmolLM answered 12 on a 1-10 scale)."""

from __future__ import annotations

import json

import pytest
import yaml

from sane.records import OutputContract
from sane.scorers.llm_judge import reply_schema


def _grammar(contract: OutputContract) -> str:
    converter = pytest.importorskip("llama_cpp.llama_grammar")
    return converter.json_schema_to_gbnf(json.dumps(reply_schema(contract).model_json_schema()))


def test_an_ordinal_reply_grammar_admits_only_the_contracts_scores():
    grammar = _grammar(OutputContract(type="ordinal", min=1, max=10))
    rule = next(line for line in grammar.splitlines() if line.startswith("score ::="))
    assert rule == "score ::= " + " | ".join(f'"{n}"' for n in range(1, 11))


def test_the_parsed_reply_still_refuses_a_score_outside_the_contract():
    schema = reply_schema(OutputContract(type="ordinal", min=1, max=10))
    assert schema(score=10).score == 10
    with pytest.raises(ValueError):
        schema(score=12)


def test_the_starters_judge_answers_in_range(tmp_path):
    from typer.testing import CliRunner

    from sane.cli import app

    assert CliRunner().invoke(app, ["init", "starter", "--dir", str(tmp_path / "s")]).exit_code == 0
    spec = yaml.safe_load((tmp_path / "s" / "spec.yaml").read_text())
    judge = next(t for t in spec["targets"] if t["kind"] == "llm_judge")
    contract = OutputContract(**spec["output"])
    if judge.get("reply") == "json":  # constrained: the grammar lists the scores
        schema = reply_schema(contract).model_json_schema()
        assert schema["properties"]["score"]["enum"] == list(range(1, 6))
