"""k votes of one decision are k distinct requests on every HTTP route (issue: a 3-vote
majority behind a seeded server was one answer counted three times).

A real OpenAI-compatible server on loopback records each request body; the panel asks one
question with k = 3 votes (all of them asked: not sequential) through the direct route
(`openai/...` with an api base), litellm's own route (a provider litellm calls for us) and a
router file. Each vote's body must differ from the others', by a seed of its own that the
stored vote names.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from fault_server import Ok, serve

from sane.llm import LLMClient, LLMSettings
from sane.panel.ballots import DirectionBallot
from sane.panel.oracle import OraclePanel, vote_seed
from sane.records import Decision, Question
from sane.suites.store import SuiteStore

K = 3
PROMPT = [{"role": "system", "content": "s"}, {"role": "user", "content": "Is it so?"}]


def _yes(body: dict[str, Any]) -> Ok:
    text = json.dumps({"rationale": "r", "decision": "yes", "answer": "lower"})
    return Ok(content=text)


def _settings(tmp_path: Path, **fields: Any) -> LLMSettings:
    return LLMSettings(cache_path=tmp_path / "cache.db", backoff_s=0.0, **fields)


def _router(tmp_path: Path, base_url: str) -> Path:
    path = tmp_path / "router.yaml"
    deployment = {"model": "openai/served", "api_base": base_url, "api_key": "sk-test"}
    path.write_text(
        yaml.safe_dump({"model_list": [{"model_name": "m", "litellm_params": deployment}]})
    )
    return path


def _decide(settings: LLMSettings, model: str, *, contrast: bool = False) -> Any:
    panel = OraclePanel(LLMClient(settings), [model], votes=K, temperature=0.7, seed=5,
                        sequential=False)  # fmt: skip
    if not contrast:
        return asyncio.run(panel.decide("s-1", Question.alignment, PROMPT))
    swapped = [PROMPT[0], {"role": "user", "content": "Is it so, the other way round?"}]
    ballot = DirectionBallot(frozenset({"lower"}))
    return asyncio.run(panel.decide("s-1", Question.alignment, PROMPT, ballot, contrast=swapped))


ROUTES = ["direct", "litellm", "router"]


@pytest.mark.parametrize("route", ROUTES)
def test_each_vote_is_its_own_request(
    route: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with serve(_yes) as server:
        if route == "direct":
            settings, model = _settings(tmp_path, api_base=server.base_url), "openai/served"
        elif route == "litellm":  # an OpenAI-compatible provider litellm calls itself
            settings, model = _settings(tmp_path, api_base=server.base_url), "hosted_vllm/served"
        else:
            settings, model = (
                _settings(tmp_path, router_path=_router(tmp_path, server.base_url)),
                "router/m",
            )
        decision = _decide(settings, model)
        bodies = [json.dumps(body, sort_keys=True) for body in server.requests]
    assert decision.decision is Decision.yes
    assert len(bodies) == K and len(set(bodies)) == K  # k requests, no two alike
    sent = [json.loads(body)["seed"] for body in bodies]
    assert sorted(sent) == sorted(vote_seed(5, i) for i in range(K))
    assert [vote.seed for vote in decision.votes] == [vote_seed(5, i) for i in range(K)]


def test_a_contrast_vote_is_two_distinct_requests_and_votes_stay_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with serve(_yes) as server:
        _decide(_settings(tmp_path, api_base=server.base_url), "openai/served", contrast=True)
        bodies = [json.dumps(body, sort_keys=True) for body in server.requests]
    assert len(bodies) == 2 * K and len(set(bodies)) == 2 * K


def test_vote_seeds_differ_within_a_decision_and_across_run_seeds() -> None:
    seeds = {(run, i): vote_seed(run, i) for run in range(4) for i in range(9)}
    assert len(set(seeds.values())) == len(seeds)  # seed 1's vote 0 is not seed 0's vote 1
    assert all(0 <= s < 2**31 for s in seeds.values())
    assert vote_seed(3, 2) == vote_seed(3, 2)  # a rerun draws the same


def test_the_suite_keeps_each_votes_seed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with serve(_yes) as server:
        decision = _decide(_settings(tmp_path, api_base=server.base_url), "openai/served")
    store = SuiteStore(tmp_path / "suite.db", create=True)
    store.put_decision(decision)
    kept = store.decisions(Question.alignment)["s-1"]
    store.close()
    assert [vote.seed for vote in kept.votes] == [vote_seed(5, i) for i in range(K)]
