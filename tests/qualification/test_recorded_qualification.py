"""An embedded model's recorded verdict: used, labelled, only while its model file and the
questions are the ones it was measured with; never a model call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sane import api
from sane.cli import app
from sane.llm import LLMSettings
from sane.qualification import recorded as recorded_module
from sane.qualification.qualify import render
from sane.qualification_record import Figure, Qualification
from sane.records import RunConfig

MODEL = "local/qwen2.5-coder-1.5b"


def _measured() -> Qualification:
    figure = Figure(count=53, of=131, rate=0.4046, ci=(0.32, 0.49))
    return Qualification(
        model=MODEL, simulated=False, quick=True, calls=131, answered=131, accuracy=figure,
        order_consistency=Figure(count=0, of=21, rate=0.0, ci=(0.0, 0.15)),
        false_accept=Figure(count=32, of=44, rate=0.73, ci=(0.58, 0.84)),
        thresholds={"contrastive": 0.85}, failing={"contrastive": 0.75},
        thresholds_source="sweep", qualifies={"contrastive": False},
    )  # fmt: skip


@pytest.fixture
def recorded_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(recorded_module, "RECORDED_DIR", tmp_path / "recorded")
    recorded_module._stored.cache_clear()
    yield tmp_path / "recorded"
    recorded_module._stored.cache_clear()


def _config() -> RunConfig:
    return RunConfig(model=MODEL, oracle_models=[MODEL])


def test_a_recorded_verdict_is_used_and_labelled_without_a_call(
    recorded_dir: Path, tmp_path: Path
) -> None:
    recorded_module.record(_measured(), _config())
    found = recorded_module.recorded_qualification(MODEL, _config())
    assert found is not None and found.recorded is not None
    assert found.accuracy.rate == 0.4046 and not found.qualifies["contrastive"]
    assert "RECORDED" in render(found) and "RECORDED" in found.verdict("contrastive")
    # through the API and the CLI: no model is loaded, no call is made (the cache stays empty)
    cache = tmp_path / "cache.db"
    via_api = api.qualify(MODEL, quick=True, llm=LLMSettings(cache_path=cache))
    assert via_api.recorded == found.recorded
    result = CliRunner().invoke(
        app, ["qualify", "--oracle-model", MODEL, "--quick", "--cache", str(cache)]
    )
    assert result.exit_code == 0, result.output
    assert "RECORDED on" in result.stdout and "does NOT qualify" in result.stdout
    assert not cache.exists()  # no client was opened, so no call could be made


def test_a_changed_question_or_model_file_makes_it_stale(
    recorded_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = recorded_module.record(_measured(), _config())
    stored = json.loads(path.read_text(encoding="utf-8"))
    other_sampling = _config().model_copy(update={"oracle_temperature": 0.1})
    assert recorded_module.recorded_qualification(MODEL, other_sampling) is None
    stored["questions_sha256"] = "0" * 64  # a template changed since it was measured
    path.write_text(json.dumps(stored), encoding="utf-8")
    recorded_module._stored.cache_clear()
    assert recorded_module.recorded_qualification(MODEL, _config()) is None
    recorded_module.record(_measured(), _config())
    recorded_module._stored.cache_clear()
    monkeypatch.setattr(recorded_module, "model_weights_sha256", lambda model: "f" * 64)
    assert recorded_module.recorded_qualification(MODEL, _config()) is None


def test_only_an_embedded_models_quick_run_is_recorded(recorded_dir: Path) -> None:
    remote = _measured().model_copy(update={"model": "openai/gpt-4o-mini"})
    with pytest.raises(ValueError, match="embedded"):
        recorded_module.record(remote, _config())
    assert recorded_module.recorded_qualification("openai/gpt-4o-mini", _config()) is None


def test_every_committed_record_matches_the_questions_asked_now() -> None:
    """A prompt change makes a recorded verdict stale (the model is asked again, minutes of
    calls in every new cache): the change must come with a new measurement."""
    recorded_module._stored.cache_clear()
    committed = sorted(recorded_module.RECORDED_DIR.glob("*.json"))
    assert committed, "the embedded oracle's verdict is recorded"
    for path in committed:
        model = json.loads(path.read_text(encoding="utf-8"))["model"]
        config = RunConfig(model=model, oracle_models=[model])
        assert recorded_module.recorded_qualification(model, config) is not None, (
            f"{path.name} is stale: the questions or the model changed since it was measured; "
            f"measure again with `sane qualify --oracle-model {model} --quick --no-recorded -f "
            f"json --out q.json` and record it with `python -m sane.qualification.recorded q.json`"
        )
