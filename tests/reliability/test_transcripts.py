"""Transcripts: every judge call's rendered prompt and raw reply reaches the suite (an
llm_judge on an OpenAI-compatible loopback server, a real suite file), is linked from the
execution record, is kept once by content, and stops at the suite's cap with a count."""

from __future__ import annotations

from pathlib import Path

import pytest
from fault_server import FaultServer, Ok

from sane.llm import LLMClient, LLMSettings
from sane.records import (
    Case,
    OutputContract,
    PairRelation,
    Recipe,
    Requirement,
    ScorerSpec,
    Verdict,
)
from sane.scorers import BuildContext, build_target, run_case
from sane.suites import store as store_module
from sane.suites.store import SuiteStore
from sane.target_kind import target_config

SPEC = ScorerSpec(
    name="transcripts",
    criterion="How faithful the summary is.",
    fields={"source": "the document", "summary": "the text being scored"},
    scored_field="summary",
    output=OutputContract(type="ordinal", min=1, max=5),
)
RECIPE = Recipe(
    id="r", capability_id="c", requirement=Requirement.monotonicity, name="add a claim",
    instruction="add an unsupported claim", variant_roles=["original", "perturbed"],
    relation=PairRelation(kind="decrease"), rationale="an unsupported claim is unfaithful",
)  # fmt: skip
CASE = Case(
    id="r/0", recipe_id="r", index=0, example_index=0,
    example={"source": "A cat sat on the mat.", "summary": "A cat sat."},
    variants={"original": "A cat sat.", "perturbed": "A cat sat and sang an opera."},
)  # fmt: skip


async def _run(server: FaultServer, tmp_path: Path, repeats: int = 1):
    server.responder = lambda body: Ok("The summary is supported.\nScore: 4")
    store = SuiteStore(tmp_path / "suite.db", create=True)
    settings = LLMSettings(cache_path=tmp_path / "cache.db", api_base=server.base_url,
                           api_key="sk-transcripts-0000", backoff_s=0.0)  # fmt: skip
    llm = LLMClient(settings, on_call=store.put_call, on_transcript=store.put_transcript)
    config = target_config(name="judge", kind="llm_judge", model="openai/judge-model")
    judge = build_target(config, BuildContext(spec=SPEC, llm=llm))
    record = await run_case(judge, SPEC, RECIPE, CASE, 0.05, repeats=repeats, timeout_s=30)
    await llm.aclose()
    llm.close()
    return store, record


async def test_each_score_links_its_call_and_the_suite_keeps_it(fault_server, tmp_path):
    store, record = await _run(fault_server, tmp_path, repeats=2)
    assert record.verdict is Verdict.fault  # 4 and 4: the added claim did not lower it
    assert {role: len(keys) for role, keys in record.transcripts.items()} == {
        "original": 2, "perturbed": 2
    }  # fmt: skip
    kept = store.transcripts([k for keys in record.transcripts.values() for k in keys])
    assert len(kept) == 4  # one per call (repeats differ in their sample index)
    perturbed = kept[record.transcripts["perturbed"][0]]
    assert "A cat sat and sang an opera." in perturbed.prompt and "How faithful" in perturbed.prompt
    assert perturbed.reply == "The summary is supported.\nScore: 4"
    assert perturbed.model == "openai/judge-model" and perturbed.task == "judge:judge"
    # the two repeats of one variant send the same prompt: it is kept once
    (prompts,) = store.db.conn.execute("select count(*) from prompts").fetchone()
    assert prompts == 2
    store.put_execution(record)
    assert store.executions()[0].transcripts == record.transcripts
    store.close()


async def test_past_the_cap_transcripts_are_counted_not_kept(fault_server, tmp_path, monkeypatch):
    monkeypatch.setattr(store_module, "SUITE_CAP", 100)  # smaller than one prompt
    store, record = await _run(fault_server, tmp_path)
    assert record.transcripts  # the links stay: the scores are the same
    assert store.transcripts() == {}
    assert store.transcripts_dropped() == 2
    store.close()


@pytest.mark.parametrize("readonly", [True, False])
def test_a_suite_from_before_transcripts_opens(tmp_path: Path, readonly: bool) -> None:
    path = tmp_path / "old.db"
    store = SuiteStore(path, create=True)
    store.db.conn.execute("drop table transcripts")
    store.db.conn.execute("drop table prompts")
    store.db.conn.execute("alter table votes drop column transcripts")
    store.close()
    reopened = SuiteStore(path, readonly=readonly)
    assert reopened.transcripts() == {} and reopened.transcripts_dropped() == 0
    reopened.close()


async def test_the_export_carries_each_scores_calls(fault_server, tmp_path):
    from sane.export import _result

    store, record = await _run(fault_server, tmp_path)
    exported = _result(record, store.transcripts())
    (call,) = exported.transcripts["perturbed"]
    assert "sang an opera" in call.prompt and call.reply.endswith("Score: 4")
    assert _result(record, {}).transcripts == {"original": [], "perturbed": []}
    store.close()
