"""A strong model qualifies, and its suite validates what it validated: replayed offline.

The replies in `tests/fixtures/strong_model/cache.db` were written by hand, as a careful strong
model, from each request's text alone (no code, no answer key), through a loopback
OpenAI-compatible bridge (`scripts/record_strong_model.py`; `recorded.json` says how and when).
Replayed with `--max-calls 0`, no call can leave the cache: a prompt that changed since the
recording is a budget stop (exit 3), and the test then fails with the command that records
the changed prompts again, so that every prompt change is read by a model that reads.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sane import api
from sane.cli import app
from sane.qualification.qualify import thresholds
from sane.records import RunConfig
from sane.requirements import Requirement
from sane.suites.store import SuiteStore

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "strong_model"
RECORDED = json.loads((FIXTURE / "recorded.json").read_text(encoding="utf-8"))
RERECORD = (
    "the panel's prompts changed since the strong model's replies were recorded: record the "
    "changed prompts again with `.venv/bin/python scripts/record_strong_model.py` while a strong "
    "model answers the bridge (docs/validity.md, 'A strong model's reading')"
)
DEFAULT_PANEL = RunConfig.model_fields["panel"].default


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    """A copy of the recorded replies (a run writes its cache; the fixture stays as it is)."""
    copy = tmp_path / "cache.db"
    shutil.copy(FIXTURE / "cache.db", copy)
    return copy


def _replayed(*args: str, cache: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("OPENAI_API_KEY", "none")
    command = [*args, "--api-base", RECORDED["api_base"], "--cache", str(cache), "--max-calls", "0"]
    result = CliRunner().invoke(app, command)
    if result.exit_code == 3:
        pytest.fail(f"{RERECORD}\n{result.stderr}")
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("run", ["quick", "full"])
def test_the_strong_model_qualifies_for_the_default_panel(
    run: str, cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    quick = ["--quick"] if run == "quick" else []
    out = _replayed("qualify", "--oracle-model", RECORDED["model"], *quick, "-f", "json",
                    cache=cache, monkeypatch=monkeypatch)  # fmt: skip
    (found,) = json.loads(out)
    _, failing, _ = thresholds()
    assert found["answered"] == found["calls"] == RECORDED["qualification"][run]["calls"]
    assert found["accuracy"]["rate"] >= 0.9
    assert found["accuracy"]["ci"][0] > failing[DEFAULT_PANEL]
    assert found["qualifies"][DEFAULT_PANEL] is True
    assert found["accuracy"] == RECORDED["qualification"][run]["accuracy"]


def test_its_suite_validates_the_recorded_families_and_says_qualified_first(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = tmp_path / "faithfulness.db"
    model = RECORDED["model"]
    _replayed(*RECORDED["suite"], "--suite", str(suite), "--model", model,
              "--oracle-model", model, "--quiet", cache=cache, monkeypatch=monkeypatch)  # fmt: skip
    store = SuiteStore(suite, readonly=True)
    validated = sorted(family.recipe_id for family in store.families() if family.validated)
    store.close()
    assert validated == RECORDED["validated_families"] and validated
    qualification = api.report(suite).validity.qualification
    assert qualification is not None and qualification.qualified
    markdown = CliRunner().invoke(app, ["report", str(suite), "-f", "md"]).stdout
    first = next(
        line for line in markdown.splitlines() if line.strip() and not line.startswith("#")
    )
    assert "Oracle qualified" in first, markdown[:600]


def test_a_comparative_suite_validates_its_recorded_families_and_ranks_a_compared_metric(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The strong model derives and validates a pairwise judge's suite (recipes edit the first
    answer; relations are on the preference for it), and a pointwise metric used
    comparatively runs on it: the comparative path from spec to ranking, offline."""
    suite = tmp_path / "answer_preference.db"
    model = RECORDED["model"]
    _replayed(*RECORDED["pairwise_suite"], "--suite", str(suite), "--model", model,
              "--oracle-model", model, "--quiet", cache=cache, monkeypatch=monkeypatch)  # fmt: skip
    store = SuiteStore(suite, readonly=True)
    validated = sorted(family.recipe_id for family in store.families() if family.validated)
    recipes = store.recipes()
    store.close()
    assert validated == RECORDED["pairwise_validated_families"] and validated
    assert {recipe.requirement for recipe in recipes} >= {Requirement.monotonicity}
    run = CliRunner().invoke(app, ["execute", str(suite), "--target", "overlap-compared"])
    assert run.exit_code in (0, 1), run.output  # 1: faults found
    report = api.report(suite)
    assert report.targets["overlap-compared"].pass_rate is not None
    assert [entry.target for entry in report.ranking] == ["overlap-compared"]


def test_the_comparative_baseline_is_validated_by_the_strong_model(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """fixed:pairwise's code edits of the first answer (padding, praise, a note to the
    evaluator, whitespace, the other answer copied in) read right to a careful reader: each
    recipe aligned and its cases valid, its controls answered right."""
    suite = tmp_path / "fixed.db"
    model = RECORDED["model"]
    _replayed(*RECORDED["fixed_pairwise_suite"], "--suite", str(suite), "--model", model,
              "--oracle-model", model, "--quiet", cache=cache, monkeypatch=monkeypatch)  # fmt: skip
    store = SuiteStore(suite, readonly=True)
    validated = sorted(family.recipe_id for family in store.families() if family.validated)
    store.close()
    assert validated == RECORDED["fixed_pairwise_validated_families"] and len(validated) == 8
    controls = api.report(suite).validity.controls
    assert controls is not None and controls.false_accept.wrong == 0 and not controls.failed
