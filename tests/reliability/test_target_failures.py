"""A target that exits, is interrupted or hangs is an error on its cases, through the real CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import sane
from sane.llm import LLMSettings

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SANE = str(Path(sys.executable).parent / "sane")

TARGETS = """
  - {name: exits, kind: python, ref: "fixture_targets:exits"}
  - {name: interrupts, kind: python, ref: "fixture_targets:interrupts"}
  - {name: exits-async, kind: python, ref: "fixture_targets:exits_async"}
  - {name: slow-own-limit, kind: python, ref: "fixture_targets:slow", timeout_s: 0.3}
  - {name: slow-run-limit, kind: python, ref: "fixture_targets:slow"}
"""


def _suite(workdir: Path) -> Path:
    spec = workdir / "tiny_spec.yaml"
    text = spec.read_text()
    spec.write_text(text[: text.index("targets:")] + "targets:" + TARGETS)
    suite = workdir / "suite.db"
    sane.generate(
        spec,
        suite=suite,
        model="scripted",
        votes=3,
        cases=4,
        max_capabilities=1,
        recipes_per_capability=1,
        llm=LLMSettings(
            cache_path=workdir / "cache.db", script_path=workdir / "tiny_script.yaml", backoff_s=0
        ),
    )
    return suite


def test_exits_interrupts_and_hangs_become_errors_never_scores(workdir: Path) -> None:
    suite = _suite(workdir)
    env = dict(os.environ, PYTHONPATH=str(FIXTURES))
    run = subprocess.run(
        [SANE, "execute", str(suite), "--trust-suite-code", "--quiet", "--timeout", "5"],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,  # a SystemExit escaping the event loop used to hang here forever
        env=env,
        cwd=workdir,
    )
    assert run.returncode in (0, 1, 4), run.stderr
    report = json.loads(
        subprocess.run(
            [SANE, "report", str(suite), "--format", "json"],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
            check=True,
        ).stdout
    )
    targets = report["targets"]
    for name in ("exits", "interrupts", "exits-async", "slow-own-limit"):
        assert targets[name]["errors"] > 0, name
        assert targets[name]["passes"] == targets[name]["faults"] == 0, name
    # the spec's own 0.3 s limit applies to that target; the others keep the run's --timeout 5
    slow = targets["slow-run-limit"]
    assert slow["errors"] == 0 and slow["passes"] + slow["faults"] > 0
    errors = " ".join(e["message"] for e in report["errors"]["execution"])
    assert "SystemExit raised by the scoring function" in errors
    assert "KeyboardInterrupt raised by the scoring function" in errors
    assert "timed out after 0.3s" in errors
