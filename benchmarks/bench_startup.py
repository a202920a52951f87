"""Start-up benchmark: CPU seconds of commands that make no LLM call.

Why: every command a user or a CI job types pays the import of the package before it does
anything; heavy libraries (litellm, LangGraph, scipy, nltk) must load only where they are
used. Each command runs in a fresh process (the installed `sane` entry point's Python),
several times; the figure is the median CPU time (user + system) of the process.

It measures `sane --help`, `sane --version`, `sane check --help`, and `sane report`,
`sane report --format json` and `sane check --max-faults 0` on a small suite (the tiny
scripted test suite: 2 validated families, 3 targets), generated and executed here.

Run:  .venv/bin/python benchmarks/bench_startup.py [--runs 5]
It also measures a dry run on the embedded models, one priced for an API model, and three refusals of bad input (an
unknown local model, an unknown provider, the scripted model without `--script`).

Last line: one JSON object with `help_cpu_s`, `version_cpu_s`, `check_help_cpu_s`,
`report_cpu_s`, `report_json_cpu_s`, `check_cpu_s`, `import_sane_cpu_s`,
`dry_run_local_cpu_s`, `dry_run_api_cpu_s`, `unknown_local_model_cpu_s`, `unknown_provider_cpu_s` and
`missing_script_cpu_s`.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
LOCAL = "local/qwen2.5-coder-1.5b"
TINY = ["--votes", "3", "--cases", "4", "--capabilities", "2", "--recipes", "2", "--quiet"]


def cpu_of(command: list[str], env: dict[str, str], exit_code: int = 0) -> float:
    """CPU seconds (user + system) the command's process used; it must exit `exit_code`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, check=False, env=env, capture_output=True)
    if done.returncode != exit_code:
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}: {done.stderr[-300:]!r}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def small_suite(work: Path, sane: list[str], env: dict[str, str]) -> Path:
    for name in ("tiny_spec.yaml", "tiny_examples.jsonl", "tiny_script.yaml"):
        shutil.copy(FIXTURES / name, work / name)
    llm = ["--script", str(work / "tiny_script.yaml"), "--cache", str(work / "cache.db")]
    suite = work / "suite.db"
    spec = str(work / "tiny_spec.yaml")
    subprocess.run([*sane, "generate", spec, "--suite", str(suite), "--model", "scripted", *TINY,
                    *llm], env=env, check=True, capture_output=True)  # fmt: skip
    run = subprocess.run([*sane, "execute", str(suite), "--spec", spec, "--quiet", *llm],
                         env=env, check=False, capture_output=True)  # fmt: skip
    if run.returncode not in (0, 4):  # 4: the fixture's `broken` target errors on every case
        raise SystemExit(f"execute failed: {run.stderr.decode()[-500:]}")
    return suite


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="Runs per command (median kept).")
    args = parser.parse_args()
    # the fixture's python targets import from tests/fixtures
    env = dict(os.environ, PYTHONPATH=str(FIXTURES))
    sane = [sys.executable, "-m", "sane"]
    with tempfile.TemporaryDirectory() as folder:
        suite = str(small_suite(Path(folder), sane, env))
        commands = {
            "help_cpu_s": [*sane, "--help"],
            "version_cpu_s": [*sane, "--version"],
            "check_help_cpu_s": [*sane, "check", "--help"],
            "report_cpu_s": [*sane, "report", suite, "--format", "summary"],
            "report_json_cpu_s": [*sane, "report", suite, "--format", "json"],
            "check_cpu_s": [*sane, "check", suite, "--max-control-false-accept", "1"],
            "import_sane_cpu_s": [sys.executable, "-c", "import sane"],
            "dry_run_local_cpu_s": [*sane, "generate", "builtin:faithfulness", "--suite",
                                    f"{folder}/dry.db", "--model", LOCAL, "--dry-run"],
            # priced and counted from litellm's files without importing litellm
            "dry_run_api_cpu_s": [*sane, "generate", "builtin:faithfulness", "--suite",
                                  f"{folder}/dry.db", "--model", "openai/gpt-4o-mini", "--dry-run"],
            # refusals of bad input (exit 2); the first check of a litellm string keeps
            # litellm's provider list, so runs after the first read it
            "unknown_local_model_cpu_s": [*sane, "generate", "builtin:faithfulness", "--suite",
                                          f"{folder}/no.db", "--model", "local/nosuch"],
            "unknown_provider_cpu_s": [*sane, "generate", "builtin:faithfulness", "--suite",
                                       f"{folder}/no.db", "--model", "nosuch/model"],
            "missing_script_cpu_s": [*sane, "generate", "builtin:faithfulness", "--suite",
                                     f"{folder}/no.db", "--model", "scripted"],
        }  # fmt: skip
        refusals = {"unknown_local_model_cpu_s", "unknown_provider_cpu_s", "missing_script_cpu_s"}
        figures = {}
        for key, command in commands.items():
            code = 2 if key in refusals else 0
            runs = [cpu_of(command, env, code) for _ in range(args.runs)]
            figures[key] = round(statistics.median(runs), 3)
            print(f"{' '.join(command[2:])[:70]:<72} {figures[key]:.3f} CPU-s", flush=True)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
