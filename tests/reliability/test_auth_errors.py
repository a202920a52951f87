"""A missing or rejected API key fails at once, naming the variable: it is never retried."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import yaml
from fault_server import Status, serve
from reliability_helpers import cli
from test_pipeline_faults import SPEC


def _generate(tiny: Path, base_url: str) -> tuple[int, str, float]:
    (tiny / "spec.yaml").write_text(yaml.safe_dump(SPEC), encoding="utf-8")
    started = time.monotonic()
    code, _, err = cli(
        "generate", tiny / "spec.yaml", "--suite", tiny / "s.db", "--model", "openai/gpt-4o-mini",
        "--api-base", base_url, "--cache", tiny / "c.db", "--quiet",
    )  # fmt: skip
    return code, err, time.monotonic() - started


def test_missing_credentials_fail_at_once_naming_the_variable(
    tiny: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with serve() as server:
        code, err, seconds = _generate(tiny, server.base_url)
    assert code == 1 and "OPENAI_API_KEY" in err, err
    assert seconds < 5  # one attempt, not four with backoff (13 s before)
    assert "attempt" not in err or "1 attempt" in err


def test_a_rejected_key_is_asked_once(tiny: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong")
    with serve(lambda body: Status(401, "Incorrect API key provided")) as server:
        code, err, _ = _generate(tiny, server.base_url)
        assert code == 1, err
        assert len(server.requests) == 1
