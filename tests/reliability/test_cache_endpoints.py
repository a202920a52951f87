"""The LLM cache is shared safely: another endpoint's answers are never replayed as this one's."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from fault_server import serve
from reliability_helpers import cli
from test_pipeline_faults import SPEC, respond


def _generate(tiny: Path, suite: str, *endpoint: object) -> None:
    code, _, err = cli(
        "generate", tiny / "spec.yaml", "--suite", tiny / suite, *endpoint,
        "--cache", tiny / "shared-cache.db", "--cases", "3", "--capabilities", "1",
        "--recipes", "1", "--skip-qualify", "--quiet",
    )  # fmt: skip
    assert code == 0, err


def test_a_second_server_gets_its_own_requests_from_a_shared_cache(
    tiny: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    (tiny / "spec.yaml").write_text(yaml.safe_dump(SPEC), encoding="utf-8")
    model = ["--model", "openai/gpt-4o-mini"]
    with serve(lambda body: respond(body, faults=False)) as first:
        _generate(tiny, "a.db", *model, "--api-base", first.base_url)
        asked_first = len(first.requests)
        with serve(lambda body: respond(body, faults=False)) as second:
            _generate(tiny, "b.db", *model, "--api-base", second.base_url)
            assert len(second.requests) == asked_first > 0  # nothing replayed from `first`
        _generate(tiny, "c.db", *model, "--api-base", first.base_url)
        assert len(first.requests) == asked_first  # the same endpoint replays its answers


def test_router_deployments_join_the_key(tiny: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    (tiny / "spec.yaml").write_text(yaml.safe_dump(SPEC), encoding="utf-8")

    def router(base_url: str, key: str) -> Path:
        path = tiny / f"router-{key}.yaml"
        deployment = {"model": "openai/gpt-4o-mini", "api_base": base_url, "api_key": key}
        path.write_text(
            yaml.safe_dump({"model_list": [{"model_name": "m", "litellm_params": deployment}]})
        )
        return path

    model = ["--model", "router/m"]
    with (
        serve(lambda body: respond(body, faults=False)) as first,
        serve(lambda body: respond(body, faults=False)) as second,
    ):
        _generate(tiny, "a.db", *model, "--router", router(first.base_url, "k1"))
        asked = len(first.requests)
        _generate(tiny, "b.db", *model, "--router", router(second.base_url, "k1"))
        assert len(second.requests) == asked > 0
        # another key to the same deployment is the same deployment: its answers replay
        _generate(tiny, "c.db", *model, "--router", router(first.base_url, "k2"))
        assert len(first.requests) == asked
