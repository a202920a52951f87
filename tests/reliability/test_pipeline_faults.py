"""A whole generate -> execute -> report run on an OpenAI-compatible loopback server
(model "openai/...", api_base) where some calls fail permanently.

Hand-worked expectations (1 capability, 1 recipe, n=6 cases, tau=3, k=3 votes):
- case 1: the case writer answers 503 on every attempt -> case error, no votes;
- case 2: every realization vote gets 500 -> unresolved votes -> not realized;
- case 3: every applicability vote gets a non-JSON body -> unresolved -> not applicable;
- cases 0, 4, 5 are joint-valid: 3 = tau, the family is validated;
- the llm_judge target gets 429 (Retry-After: 0) forever on case 5's perturbed text ->
  one execution error for that target; the python target passes all three cases.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml
from fault_server import Action, FaultServer, Malformed, Ok, Status

import sane
from sane.llm import LLMSettings
from sane.records import Decision, Question, Verdict
from sane.suites.store import SuiteStore

ATTEMPTS = 4  # provider_retries=3

SPEC = {
    "name": "http-faithfulness",
    "criterion": "Every claim in the summary is supported by the source.",
    "fields": {"source": "the document", "summary": "the text being scored"},
    "scored_field": "summary",
    "output": {"type": "ordinal", "min": 1, "max": 5, "higher_is_better": True},
    "examples": "tiny_examples.jsonl",
    "targets": [
        {"name": "careful", "kind": "python", "ref": "fixture_targets:careful"},
        {"name": "http-judge", "kind": "llm_judge", "model": "openai/judge-model"},
    ],
}
CAPABILITIES = {
    "capabilities": [
        {
            "name": "Unsupported claims",
            "description": "Penalises them",
            "requirement": "monotonicity",
        }
    ]
}
RECIPES = {
    "recipes": [
        {
            "name": "add unsupported claim",
            "instruction": "Add a claim the source does not support.",
            "variant_roles": ["original", "perturbed"],
            "relation": {"kind": "decrease", "original": "original", "perturbed": "perturbed"},
            "rationale": "An unsupported claim lowers faithfulness.",
        }
    ]
}
YES = {"rationale": "fine", "decision": "yes"}
NO = {"rationale": "wrong direction", "decision": "no"}


def _ok(payload: object) -> Ok:
    return Ok(json.dumps(payload))


def respond(body: dict[str, Any], faults: bool = True) -> Action:
    """The whole pipeline's model, keyed on the prompt text, with permanent faults."""
    text = "\n".join(str(m.get("content") or "") for m in body["messages"])
    if "Question (realization)" in text:
        return (
            Status(500, "realization backend down") if faults and "case-2\n" in text else _ok(YES)
        )
    if "Question (relation applicability)" in text:
        return Malformed() if faults and "case-3\n" in text else _ok(YES)
    if "Question (recipe alignment)" in text:
        # a sound oracle: the mirror of the decrease recipe (a HIGHER score) is refused
        return _ok(NO if "a HIGHER score" in text else YES)
    if "Case number:" in text:
        number = int(re.search(r"Case number: (\d+)", text).group(1))  # type: ignore[union-attr]
        if faults and number == 1:
            return Status(503, "case writer down")
        claim = f"The summary, plus an UNSUPPORTED claim #{number}."
        return _ok({"variants": [{"role": "perturbed", "text": claim}], "notes": "added"})
    if "perturbation recipes" in text:
        return _ok(RECIPES)
    if "capabilities" in text:
        return _ok(CAPABILITIES)
    if '"score"' in text:  # the default judge rubric
        if faults and "claim #5" in text:
            return Status(429, "judge quota exhausted", {"Retry-After": "0"})
        return _ok({"score": 2 if "UNSUPPORTED" in text else 5, "reason": "r"})
    return Status(400, "unexpected prompt")


def test_permanent_faults_are_errors_never_votes_or_scores(
    tiny: Path, fault_server: FaultServer
) -> None:
    fault_server.responder = respond
    (tiny / "spec.yaml").write_text(yaml.safe_dump(SPEC), encoding="utf-8")
    settings = LLMSettings(
        cache_path=tiny / "cache.db",
        api_base=fault_server.base_url,
        api_key="sk-pipeline-fault-test",
        backoff_s=0.0,
        provider_retries=ATTEMPTS - 1,
        timeout_s=5,
    )
    suite = tiny / "suite.db"
    sane.generate(
        tiny / "spec.yaml",
        suite=suite,
        model="openai/agent-model",
        votes=3,
        cases=6,
        tau=3,
        max_capabilities=1,
        recipes_per_capability=1,
        llm=settings,
    )
    records = sane.execute(suite, llm=settings, timeout_s=5, trust_suite_code=True)
    report = sane.report(suite).model_dump(mode="json")

    funnel = report["validity"]
    assert (funnel["candidate_recipes"], funnel["aligned_recipes"], funnel["cases"]) == (1, 1, 6)
    assert funnel["case_generation_errors"] == 1
    assert (funnel["realized_cases"], funnel["applicable_cases"]) == (4, 3)
    assert (funnel["joint_valid_cases"], funnel["validated_families"]) == (3, 1)
    assert funnel["unresolved"] == {"alignment": 0, "realization": 1, "applicability": 1}

    # No error became a vote, a score, a pass or a fault.
    store = SuiteStore(suite)
    realization = store.decisions(Question.realization)
    applicability = store.decisions(Question.applicability)
    store.close()
    assert "rec-1-1/case-1" not in realization  # the failed case got no votes at all
    failed_votes = {}
    for stage, decision, cause in (
        ("vote:realization", realization["rec-1-1/case-2"], "InternalServerError"),
        ("vote:applicability", applicability["rec-1-1/case-3"], "Expecting value"),
    ):
        assert decision.decision is Decision.unresolved
        # The panel may stop early once the outcome is settled, but never before 2 votes.
        assert len(decision.votes) >= 2
        assert all(
            v.decision is Decision.unresolved and cause in (v.error or "") for v in decision.votes
        )
        failed_votes[stage] = len(decision.votes)

    errors = report["errors"]
    assert errors["by_stage"] == {"cases": 1} | failed_votes
    assert errors["by_target"] == {"http-judge": 1}
    assert "ServiceUnavailableError" in next(
        e["message"] for e in errors["items"] if e["stage"] == "cases"
    )
    verdicts = {(r.target, r.case_id.split("/")[-1]): r for r in records}
    assert sorted(verdicts) == sorted(
        (t, f"case-{i}") for t in ("careful", "http-judge") for i in (0, 4, 5)
    )
    failed = verdicts[("http-judge", "case-5")]
    assert failed.verdict is Verdict.error and failed.scores == {}
    assert "RateLimitError" in (failed.error or "")
    assert all(r.verdict is Verdict.passed for k, r in verdicts.items() if k != failed_key(failed))

    targets = report["targets"]
    assert (targets["careful"]["passes"], targets["careful"]["errors"]) == (3, 0)
    judge = targets["http-judge"]
    assert (judge["passes"], judge["faults"], judge["errors"], judge["pass_rate"]) == (2, 0, 1, 1.0)

    # Each permanent fault was tried exactly ATTEMPTS times per call, and every attempt
    # is an error call record.
    failing_calls = 1 + sum(failed_votes.values()) + 1
    assert report["calls"]["errors"] == ATTEMPTS * failing_calls
    bodies = [json.dumps(b) for b in fault_server.requests]
    assert sum("Case number: 1\\n" in b for b in bodies) == ATTEMPTS
    assert sum("claim #5" in b and '\\"score\\"' in b for b in bodies) == ATTEMPTS


def failed_key(record: Any) -> tuple[str, str]:
    return (record.target, record.case_id.split("/")[-1])
