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


def test_missing_credentials_are_refused_by_the_flag_before_any_request(
    tiny: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--api-base without a key: bad input naming the flag and the fix, before the suite
    is written or the server asked (it used to be every case's authentication error)."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with serve() as server:
        code, err, seconds = _generate(tiny, server.base_url)
        assert server.requests == []
    assert code == 2 and "--api-base" in err and "OPENAI_API_KEY=none" in err, err
    assert seconds < 5 and len(err.strip().splitlines()) == 1


def test_a_rejected_key_is_asked_once(tiny: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong")
    with serve(lambda body: Status(401, "Incorrect API key provided")) as server:
        code, err, _ = _generate(tiny, server.base_url)
        assert code == 1, err
        assert len(server.requests) == 1
