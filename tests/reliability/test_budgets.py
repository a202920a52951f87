"""--max-calls and --max-cost stop a run cleanly (exit 3, resumable, said so); reruns
resume to the same result without fetching a completed call twice. --dry-run estimates.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from fault_server import FaultServer
from reliability_helpers import cli, comparable, kill_trials
from test_pipeline_faults import SPEC, respond


@pytest.fixture(scope="module")
def kt():
    return kill_trials()


def _until_done(argv: list[str], budget: list[str]) -> list[int]:
    codes: list[int] = []
    for _ in range(30):
        code, _, err = cli(*argv, *budget)
        codes.append(code)
        if code != 3:
            assert code == 0, err
            return codes
        line = err.strip().splitlines()[-1]
        assert "stopped at budget" in line and "rerun the same command to resume" in line, err
    raise AssertionError("the run never finished")


def test_call_budget_stops_and_resumes_to_the_same_result(
    kt, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(kt.FIXTURES))
    ref, work = tmp_path / "ref", tmp_path / "budget"
    for path in (ref, work):
        kt.prepare(path, delay_s=0.0)
    for which, budget in (("generate", "12"), ("execute", "3")):
        code, _, err = cli(*kt.command(ref, which))
        assert code == 0, err
        codes = _until_done(kt.command(work, which), ["--max-calls", budget])
        assert codes.count(3) >= 2 and codes[-1] == 0, (which, codes)  # stopped, resumed, done
    assert kt.report_of(work) == kt.report_of(ref)
    assert kt.cache_keys(work) == kt.cache_keys(ref)
    assert kt.repeated_fetches(work) == 0
    assert kt.integrity(work / "suite.db") == "ok"


def test_cost_budget_on_a_priced_model(
    kt, tiny: Path, fault_server: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    fault_server.responder = lambda body: respond(body, faults=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-budget-test-key")
    (tiny / "spec.yaml").write_text(yaml.safe_dump(SPEC), encoding="utf-8")
    argv = [
        "generate",
        tiny / "spec.yaml",
        "--suite",
        tiny / "suite.db",
        "--model",
        "openai/gpt-4o-mini",
        "--api-base",
        fault_server.base_url,
        "--cache",
        tiny / "c.db",
        "--skip-qualify",
        "--cases",
        "3",
        "--capabilities",
        "1",
        "--recipes",
        "1",
        "--quiet",
    ]
    # Each call costs 10 prompt + 5 completion gpt-4o-mini tokens (4.5e-6 USD).
    code, _, err = cli(*argv, "--max-cost", "0.00001")
    assert code == 3 and "cost budget reached" in err and "resume" in err, err
    # The limit is checked before each call; the price is known once a call returns, so at
    # most `--concurrency` (default 8) calls can pass the check before the budget is seen spent.
    assert 2 <= len(fault_server.requests) <= 8
    code, _, err = cli(*argv, "--max-cost", "1")
    assert code == 0, err
    assert kt.repeated_fetches(tiny) == 0  # the paid calls were replayed, not bought again
    report = json.loads(cli("report", tiny / "suite.db")[1])
    assert report["validity"]["validated_families"] == 1
    assert report["calls"]["cost"] > 0
    # the stopped-and-resumed suite is the one an uninterrupted run makes
    ref = tiny / "ref"
    ref.mkdir()
    shutil.copy(tiny / "tiny_examples.jsonl", ref / "tiny_examples.jsonl")
    shutil.copy(tiny / "spec.yaml", ref / "spec.yaml")
    ref_argv = [str(a).replace(str(tiny), str(ref)) for a in argv]
    code, _, err = cli(*ref_argv)
    assert code == 0, err
    reference = json.loads(cli("report", ref / "suite.db")[1])
    assert comparable(report) == comparable(reference)


def test_dry_run_prints_the_estimate_and_runs_nothing(tiny: Path) -> None:
    suite = tiny / "never.db"
    code, out, err = cli(
        "generate",
        tiny / "tiny_spec.yaml",
        "--suite",
        suite,
        "--model",
        "openai/gpt-4o-mini",
        "--votes",
        "3",
        "--cases",
        "10",
        "--capabilities",
        "6",
        "--recipes",
        "2",
        "--dry-run",
    )
    assert code == 0, err
    assert not suite.exists()
    # 1 + C + 2Rk (recipes and mirrors) + R*n*(1 + 2k) + 3Rk (controls), C = 6, R = 12, k = 3,
    # n = 10
    expected = 1 + 6 + 2 * 12 * 3 + 12 * 10 * (1 + 2 * 3) + 3 * 12 * 3
    total = next(line for line in out.splitlines() if line.strip().startswith("total"))
    assert int(total.split()[1]) == expected == 1027
    assert "1 + C + 2Rk + R x n x (1 + 2k) + 3Rk" in out
    assert "$" in total  # litellm knows this model's price
    code, out, _ = cli(
        "generate", tiny / "tiny_spec.yaml", "--suite", suite, "--model", "scripted", "--dry-run"
    )
    assert code == 0 and "$0.0000" in out


def test_a_cost_budget_on_an_unpriced_model_is_refused_before_any_call(
    tiny: Path, fault_server: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    (tiny / "spec.yaml").write_text(yaml.safe_dump(SPEC), encoding="utf-8")
    code, _, err = cli(
        "generate", tiny / "spec.yaml", "--suite", tiny / "suite.db",
        "--model", "openai/my-unpriced-finetune", "--api-base", fault_server.base_url,
        "--cache", tiny / "c.db", "--max-cost", "1", "--quiet",
    )  # fmt: skip
    assert code == 2, err
    assert "--max-cost" in err and "openai/my-unpriced-finetune" in err and "--max-calls" in err
    assert len(err.strip().splitlines()) == 1
    assert fault_server.requests == [] and not (tiny / "suite.db").exists()


def test_a_tiny_call_budget_still_finishes_by_reruns(kt, tiny: Path) -> None:
    """--max-calls 4 with 8 concurrent calls: every paid call reaches the cache, so each rerun
    gets further (a budget stop used to cancel the calls in flight, uncached, forever)."""
    script = yaml.safe_load((tiny / "tiny_script.yaml").read_text())
    (tiny / "tiny_script.yaml").write_text(yaml.safe_dump(script | {"delay_s": 0.2}))
    argv = [
        "generate", tiny / "tiny_spec.yaml", "--model", "scripted", "--script",
        tiny / "tiny_script.yaml", "--suite", tiny / "suite.db", "--cases", "4",
        "--cache", tiny / "c.db", "--skip-qualify", "--quiet",
    ]  # fmt: skip
    codes = _until_done(argv, ["--max-calls", "4"])
    assert codes[-1] == 0 and len(codes) > 2
    assert kt.repeated_fetches(tiny) == 0  # no call was paid for twice


@pytest.mark.parametrize("panel", ["contrastive", "plain", "blind"])
def test_the_estimate_bounds_a_real_exhaustive_run(tiny: Path, panel: str) -> None:
    """The dry run's count is an upper bound: mirrors, order-checked votes and controls
    included (the scripted tiny suite, every vote asked)."""
    from tiny_suite import TINY_SETTINGS, generate_tiny

    from sane.llm import LLMSettings
    from sane.pipeline.estimate import estimate_inputs
    from sane.pipeline.run_config import run_config
    from sane.suites.store import SuiteStore

    settings = LLMSettings(cache_path=tiny / "cache.db", script_path=tiny / "tiny_script.yaml")
    suite = tiny / f"{panel}.db"
    generate_tiny(tiny, settings, suite=suite, panel=panel, exhaustive=True)
    store = SuiteStore(suite, readonly=True)
    try:
        made = len(store.calls())
    finally:
        store.close()
    options = {k: v for k, v in TINY_SETTINGS.items() if k != "model"}
    config = run_config(model="scripted", panel=panel, **options)
    bound = estimate_inputs(str(tiny / "tiny_spec.yaml"), config)
    assert 0 < made <= bound.calls
