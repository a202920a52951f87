"""An API-only install (`pip install .`: no llama.cpp, no embedded models, no browser) runs
the whole workflow against API models. Simulated here by a process in which the packages of
the `local` extra cannot be imported: generate, execute, report, check and export run on the
scripted model, and a local target is refused as bad input, never a crash."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from importlib.metadata import requires
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
LOCAL_ONLY = ("llama_cpp", "sentence_transformers", "torch", "transformers")

RUN_WITHOUT_LOCAL = f"""
import sys
BLOCKED = {LOCAL_ONLY!r}

class Absent:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}}")
        return None

sys.meta_path.insert(0, Absent())
from sane.cli import app
app(prog_name="sane")
"""


def sane(*args: object, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", RUN_WITHOUT_LOCAL, *map(str, args)],
        capture_output=True, text=True, timeout=300, cwd=cwd, check=False,
        env={"PYTHONPATH": str(FIXTURES), "PATH": "/usr/bin:/bin", "HOME": str(cwd)},
    )  # fmt: skip


def test_the_core_requirements_hold_no_local_runtime() -> None:
    core = [r for r in requires("sane") or [] if "extra ==" not in r]
    assert core and not any(
        r.lower().startswith(("llama-cpp-python", "sentence-transformers", "torch")) for r in core
    ), core


def test_the_workflow_runs_without_the_local_extra(tmp_path: Path) -> None:
    for name in ("tiny_spec.yaml", "tiny_examples.jsonl", "tiny_script.yaml"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    llm = ["--script", "tiny_script.yaml", "--cache", "cache.db", "--quiet"]
    tiny = ["--votes", "3", "--cases", "4", "--capabilities", "2", "--recipes", "2"]
    run = sane("generate", "tiny_spec.yaml", "--suite", "s.db", "--model", "scripted", *tiny,
               *llm, cwd=tmp_path)  # fmt: skip
    assert run.returncode == 0, run.stderr
    run = sane("execute", "s.db", "--spec", "tiny_spec.yaml", *llm, cwd=tmp_path)
    assert run.returncode == 4, run.stderr  # the fixture's `broken` target errors everywhere
    report = json.loads(sane("report", "s.db", "--format", "json", cwd=tmp_path).stdout)
    assert report["targets"]["careful"]["pass_rate"] == 1.0
    assert sane("check", "s.db", "--max-faults", "0", "--target", "careful",
                cwd=tmp_path).returncode == 0  # fmt: skip
    exported = sane("export", "s.db", cwd=tmp_path)
    assert exported.returncode == 0 and exported.stdout.count("\n") == 3, exported.stderr

    # an embedded model asked for without the extra: one line, bad input
    local = sane("generate", "tiny_spec.yaml", "--suite", "l.db", "--model",
                 "local/qwen2.5-coder-1.5b", *tiny, *llm, cwd=tmp_path)  # fmt: skip
    assert local.returncode == 2 and "the `local` extra" in local.stderr, local.stderr
    assert local.stderr.strip().count("\n") == 0 and not (tmp_path / "l.db").exists()
