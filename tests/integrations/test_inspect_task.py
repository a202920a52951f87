"""The Inspect AI task runs a real suite's validated cases against Inspect's mock model, offline.

The suite is the tiny scripted one (tests/fixtures/tiny_script.yaml): one validated family,
rec-1-1, whose 3 joint-valid cases expect a `decrease` when an UNSUPPORTED claim is added
to the summary. Its spec adds one llm_judge target whose rubric carries a marker, so a test
can see which rubric the judge was shown.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage, get_model

import sane
from sane.errors import InputError
from sane.integrations.inspect_task import sane_suite
from sane.llm import LLMSettings
from sane.suites.store import SuiteStore

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
VALIDATED = {"rec-1-1/case-0", "rec-1-1/case-1", "rec-1-1/case-3"}
MARKER = "RUBRIC-MARKER-7"
RUBRIC = MARKER + " Score the {{ scored_field }}:\n{{ fields[scored_field] }}\nScore: N\n"

Judge = Callable[[str], str]

# raised inside Inspect's retry set-up (its use of tenacity), not by sane
pytestmark = pytest.mark.filterwarnings(
    "ignore:The 'initial' parameter is deprecated:DeprecationWarning"
)


@pytest.fixture(scope="module")
def built_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Generate the tiny suite once (scripted model, no network); tests copy it."""
    work = tmp_path_factory.mktemp("inspect-suite")
    for name in ("tiny_examples.jsonl", "tiny_script.yaml"):
        shutil.copy(FIXTURES / name, work / name)
    spec = yaml.safe_load((FIXTURES / "tiny_spec.yaml").read_text())
    spec["targets"] = [
        {"name": "judge-v1", "kind": "llm_judge", "model": "scripted", "prompt": "v1.j2"}
    ]
    (work / "v1.j2").write_text(RUBRIC)
    (work / "spec.yaml").write_text(yaml.safe_dump(spec))
    suite = work / "suite.db"
    sane.generate(
        work / "spec.yaml",
        suite=suite,
        model="scripted",
        votes=3,
        cases=4,
        max_capabilities=2,
        recipes_per_capability=2,
        llm=LLMSettings(
            cache_path=work / "cache.db", script_path=work / "tiny_script.yaml", backoff_s=0.0
        ),
    )
    return suite


@pytest.fixture
def suite(built_suite: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # Inspect's own files (traces, sample buffer) go under tmp_path too, not the home folder.
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    copy = tmp_path / "suite.db"
    shutil.copy(built_suite, copy)
    return copy


def mock_judge(answer: Judge) -> object:
    """Inspect's mock model answering each prompt with `answer(prompt)`. Token usage is set so
    the mock never loads a tokenizer (which would need the network)."""

    def output(
        messages: list[ChatMessage], tools: object, tool_choice: object, config: object
    ) -> ModelOutput:
        reply = ModelOutput.from_content("mockllm/model", answer(messages[-1].text))
        reply.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return reply

    return get_model("mockllm/model", custom_outputs=output, memoize=False)


def run(suite: Path, answer: Judge, **task_args: object) -> EvalLog:
    log_dir = suite.parent / "logs"
    (log,) = inspect_eval(
        sane_suite(suite=str(suite), **task_args),
        model=mock_judge(answer),
        log_dir=str(log_dir),
        display="none",
    )
    assert list(log_dir.glob("*.eval")), "the eval log is written under tmp_path"
    return log


def results(log: EvalLog) -> dict[str, tuple[str, dict]]:
    """Per sample: its score value and score metadata (errored samples are left out)."""
    assert log.samples is not None
    return {
        str(s.id): (s.scores["relation_holds"].value, s.scores["relation_holds"].metadata)
        for s in log.samples
        if s.scores
    }


def lower_when_unsupported(prompt: str) -> str:
    return "Score: 1" if "UNSUPPORTED" in prompt else "Score: 5"


def test_a_judge_that_always_gives_the_same_score_faults_every_decrease_case(
    suite: Path,
) -> None:
    log = run(suite, lambda prompt: "Score: 3")
    assert log.status == "success"
    got = results(log)
    assert set(got) == VALIDATED  # one sample per validated case, nothing else
    for value, meta in got.values():
        assert value == "I"  # INCORRECT: a fault
        assert meta["verdict"] == "fault"
        assert meta["relation"] == "decrease"
        assert meta["scores"] == {"original": [3.0], "perturbed": [3.0]}
        assert meta["normalised"] == {"original": [0.5], "perturbed": [0.5]}
        assert meta["tolerance"] == 0.05
    assert log.results is not None
    assert log.results.scores[0].metrics["accuracy"].value == 0.0


def test_a_judge_that_scores_the_perturbed_variant_lower_passes(suite: Path) -> None:
    log = run(suite, lower_when_unsupported)
    assert log.status == "success"
    got = results(log)
    assert set(got) == VALIDATED
    for value, meta in got.values():
        assert value == "C"  # CORRECT: a pass
        assert meta["verdict"] == "pass"
        assert meta["scores"] == {"original": [5.0], "perturbed": [1.0]}
        assert meta["normalised"] == {"original": [1.0], "perturbed": [0.0]}
    assert log.results is not None
    assert log.results.scores[0].metrics["accuracy"].value == 1.0


def test_an_unparseable_reply_is_an_error_of_its_sample_never_a_verdict(suite: Path) -> None:
    def answer(prompt: str) -> str:
        if "Ana won" in prompt and "UNSUPPORTED" in prompt:
            return "The summary seems fine to me."
        return lower_when_unsupported(prompt)

    log = run(suite, answer)
    assert log.samples is not None
    errored = {str(s.id): s.error for s in log.samples if s.error is not None}
    assert set(errored) == {"rec-1-1/case-1"}
    assert "unparseable judge output" in errored["rec-1-1/case-1"].message
    got = results(log)
    assert set(got) == VALIDATED - {"rec-1-1/case-1"}
    assert {value for value, _ in got.values()} == {"C"}
    # every sample ran; the eval is marked as failed because one errored
    assert log.status == "error"
    assert log.results is not None and log.results.completed_samples == 2


def test_a_rubric_target_and_the_suite_tolerance_are_used(suite: Path) -> None:
    def answer(prompt: str) -> str:
        if MARKER not in prompt:
            return "not the rubric I was given"
        return "Score: 4" if "UNSUPPORTED" in prompt else "Score: 5"

    # a drop of 5 -> 4 on 1..5 is 0.25 normalised: within a stored tolerance of 0.3 ...
    writer = SuiteStore(suite, writer=True)
    writer.put_tolerance("judge-v1", {"tolerance": 0.3, "noise_std": 0.15, "floor": 0.05})
    writer.close()
    got = results(run(suite, answer, rubric_target="judge-v1"))
    assert set(got) == VALIDATED
    assert {(value, meta["tolerance"], meta["judge"]) for value, meta in got.values()} == {
        ("I", 0.3, "judge-v1")
    }
    # ... and beyond an explicit one of 0.1
    got = results(run(suite, answer, rubric_target="judge-v1", tolerance=0.1))
    assert {(value, meta["tolerance"]) for value, meta in got.values()} == {("C", 0.1)}


def test_bad_task_arguments_are_refused_before_any_call(suite: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="unknown llm_judge target 'nope'.*judge-v1"):
        sane_suite(suite=str(suite), rubric_target="nope")
    with pytest.raises(InputError, match="tolerance"):
        sane_suite(suite=str(suite), tolerance=-0.1)
    with pytest.raises(InputError):
        sane_suite(suite=str(tmp_path / "missing.db"))


def test_sane_does_not_import_inspect_ai() -> None:
    code = (
        "import sys, sane, sane.api, sane.cli, sane.scorers; "
        "assert 'inspect_ai' not in sys.modules, 'sane imported inspect_ai'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
