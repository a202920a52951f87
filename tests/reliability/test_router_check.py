"""`--model router/NAME` is checked by the same registry as every model string, in a process
that has not imported the router module (the CLI's case: the in-process tests always had)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml


def test_a_router_model_is_known_before_the_router_module_loads() -> None:
    probe = (
        "import sys\n"
        "from sane.llm import model_problem\n"
        "assert 'sane.llm._router' not in sys.modules\n"
        "print(repr(model_problem('router/m')), repr(model_problem('router/')))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], check=False, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["None", "'a", "router", "model", "needs", "a", "name:",
                                     "router/<model_name>'"]  # fmt: skip


def test_generate_with_a_router_model_dry_runs_from_the_command_line(tiny: Path) -> None:
    router = tiny / "r.yaml"
    params = {"model": "openai/gpt-4o-mini", "api_base": "http://127.0.0.1:9/v1"}
    router.write_text(
        yaml.safe_dump({"model_list": [{"model_name": "m", "litellm_params": params}]})
    )
    argv = [sys.executable, "-m", "sane", "generate", str(tiny / "tiny_spec.yaml"), "--suite",
            str(tiny / "s.db"), "--model", "router/m", "--router", str(router), "--dry-run"]  # fmt: skip
    # the dry run freezes the spec's targets as the real run does (a python target's module is
    # found on the Python path the test process has, not the child's)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    result = subprocess.run(argv, check=False, capture_output=True, text=True, cwd=tiny, env=env)
    assert result.returncode == 0, result.stderr
    assert "unknown model" not in result.stderr
    assert not (tiny / "s.db").exists()
