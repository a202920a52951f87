"""The scripted model's rules format as docs/reference.md documents it: its complete example
runs, offline, and validates the one family it describes; a forgotten --script is refused
by its flag before any call."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import sane
from sane.errors import InputError
from sane.llm import LLMSettings

REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "reference.md"


def _documented_rules() -> str:
    section = REFERENCE.read_text("utf-8").split("### The scripted model", 1)[1]
    return re.search(r"```yaml\n(.*?)```", section, re.DOTALL).group(1)


def test_the_documented_rules_file_validates_its_family(workdir: Path) -> None:
    rules = workdir / "rules.yaml"
    rules.write_text(_documented_rules())
    settings = LLMSettings(cache_path=workdir / "cache.db", script_path=rules, backoff_s=0.0)
    snapshot = sane.generate(
        workdir / "tiny_spec.yaml", suite=workdir / "suite.db", model="scripted", votes=1,
        cases=2, max_capabilities=1, recipes_per_capability=1, llm=settings,
    )  # fmt: skip
    report = sane.report(workdir / "suite.db")
    assert report.validity.validated_families == 1, report.validity
    controls = report.validity.controls
    assert controls is not None and not controls.failed and controls.false_accept.items > 0
    assert len(snapshot.recipes) == 1


def test_a_scripted_model_without_its_rules_file_is_refused_by_the_flag(workdir: Path) -> None:
    with pytest.raises(InputError, match=r"--script.*rules file"):
        sane.generate(
            workdir / "tiny_spec.yaml", suite=workdir / "suite.db", model="scripted",
            llm=LLMSettings(cache_path=workdir / "cache.db"),
        )  # fmt: skip
    assert not (workdir / "suite.db").exists()  # nothing written before the refusal


def test_a_server_without_a_key_is_refused_by_the_flag_with_the_fix(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    settings = LLMSettings(cache_path=workdir / "cache.db", api_base="http://127.0.0.1:9/v1")
    with pytest.raises(InputError, match=r"--api-base.*OPENAI_API_KEY=none"):
        sane.generate(
            workdir / "tiny_spec.yaml", suite=workdir / "suite.db", model="openai/m", llm=settings
        )
    assert not (workdir / "suite.db").exists()
