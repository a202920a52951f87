"""A newcomer's first hour, measured: the README's two commands on a fresh clone.

Why: set-up, `sane demo` and the test command each have a target on a 2-core machine
(set-up at most 8 minutes; the demo at most 5 minutes, 400 CPU-seconds and a peak under
3.5 GB; the tests at most 15 minutes), and a run that is green and fast on one CPU can be
slow on another (an AVX2-only one runs other kernels). This clones the repository's
committed HEAD into a temporary folder and runs there, timing each step:

1. `bash scripts/setup.sh` with an empty sane cache and pip cache (`SANE_CACHE_DIR`,
   `PIP_CACHE_DIR`): the llama.cpp build and every download included. What the system
   already has (Debian's chromium) is not installed again. `--reuse-wheel` keeps this
   machine's sane cache instead (the build and the models' assembly then take seconds).
2. `benchmarks/bench_local.py --no-grammar-probe`: `sane demo` cold, in a child process
   (its wall, CPU-seconds and peak RSS), then replayed.
3. `.venv/bin/python -m pytest -q -p no:cacheprovider`: the README's test command.

Run:  .venv/bin/python benchmarks/bench_first_hour.py [--reuse-wheel] [--skip-tests]
                                                      [--keep DIR]

Each step's output goes to a log in the work folder (printed at the end; `--keep DIR` puts
the folder there, else it is a temporary one that is kept). Last line: one JSON object with
`commit`, `cpu_model`, `avx512` (whether the CPU reports avx512f), `loaded_variant` (the
llama.cpp CPU module the build loads here), `setup_s`, `demo_wall_s`, `demo_cpu_s`,
`demo_peak_rss_gib`, `tests_s`, `tests_passed`, `tests_failed`, and `targets`: each
target's name -> whether it was met (`null` for a step that was skipped).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# the targets on a 2-core machine; the peak is in GiB, as bench_local.py prints it,
# and its limit is 3.5 GB in decimal units (3.26 GiB), the stricter reading of "3.5 GB"
LIMITS = {
    "setup_s": 8 * 60,
    "demo_wall_s": 5 * 60,
    "demo_cpu_s": 400,
    "demo_peak_rss_gib": round(3.5e9 / 2**30, 2),
    "tests_s": 15 * 60,
}
PYTEST_COUNT = re.compile(r"(\d+) (passed|failed|errors?)\b")


def pytest_counts(summary: str) -> dict[str, int]:
    """passed / failed counts from pytest's last line ("2 failed, 1175 passed in 516.26s");
    errors count as failed."""
    counts = {"passed": 0, "failed": 0}
    for number, word in PYTEST_COUNT.findall(summary):
        counts["passed" if word == "passed" else "failed"] += int(number)
    return counts


def targets_met(figures: dict[str, float | int | None]) -> dict[str, bool | None]:
    """Each limit -> met or not (None when its step did not run); tests must also all pass."""
    met: dict[str, bool | None] = {
        name: None if figures.get(name) is None else figures[name] <= limit  # type: ignore[operator]
        for name, limit in LIMITS.items()
    }
    failed = figures.get("tests_failed")
    met["tests_pass"] = None if failed is None else failed == 0 and bool(figures["tests_passed"])
    return met


def cpu_facts(cpuinfo: str) -> tuple[str, bool]:
    """The CPU's model name and whether it reports AVX-512 (from /proc/cpuinfo's text)."""
    model = re.search(r"^model name\s*:\s*(.+)$", cpuinfo, re.MULTILINE)
    flags = re.search(r"^flags\s*:\s*(.+)$", cpuinfo, re.MULTILINE)
    return (model.group(1).strip() if model else "unknown"), bool(
        flags and "avx512f" in flags.group(1).split()
    )


def run_step(name: str, command: list[str], cwd: Path, env: dict[str, str], log: Path) -> float:
    """Run one step with its output in `log`; its wall seconds. A failed step stops here."""
    print(f"first-hour: {name} ({' '.join(command)}) ...", file=sys.stderr, flush=True)
    started = time.perf_counter()
    with log.open("w") as out:
        done = subprocess.run(
            command, check=False, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT
        )
    seconds = time.perf_counter() - started
    print(f"first-hour: {name}: {seconds:.0f} s, exit {done.returncode}", file=sys.stderr)
    if done.returncode != 0 and name != "tests":  # failed tests are a figure, not a stop
        tail = log.read_text(errors="replace")[-3000:]
        raise SystemExit(f"first-hour: {name} failed (exit {done.returncode}); {log}:\n{tail}")
    return seconds


def last_json(log: Path) -> dict:
    lines = [line for line in log.read_text().splitlines() if line.startswith("{")]
    return json.loads(lines[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reuse-wheel", action="store_true", help="keep this machine's cache")
    parser.add_argument("--skip-tests", action="store_true", help="set-up and the demo only")
    parser.add_argument("--keep", type=Path, help="the work folder (default: a new temporary one)")
    args = parser.parse_args(argv)
    work = args.keep or Path(tempfile.mkdtemp(prefix="sane-first-hour-"))
    work.mkdir(parents=True, exist_ok=True)
    clone = work / "clone"
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            check=True, capture_output=True, text=True).stdout.strip()  # fmt: skip
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    env = dict(os.environ)
    if not args.reuse_wheel:
        env.update(SANE_CACHE_DIR=str(work / "sane-cache"), PIP_CACHE_DIR=str(work / "pip-cache"))
    env.pop("SANE_CPU_VARIANT", None)  # the module this CPU loads, as a newcomer's would
    model, avx512 = cpu_facts(Path("/proc/cpuinfo").read_text())
    python = str(clone / ".venv" / "bin" / "python")

    figures: dict[str, float | int | None] = {}
    figures["setup_s"] = round(
        run_step("setup", ["bash", "scripts/setup.sh"], clone, env, work / "setup.log"), 1
    )
    check = subprocess.run([python, "sane/local/cpu_build.py", "check"], cwd=clone, env=env,
                           check=False, capture_output=True, text=True)  # fmt: skip
    loaded = json.loads(check.stdout or "{}").get("loaded_variant")
    demo_log = work / "demo.log"
    bench = [python, "benchmarks/bench_local.py", "--no-grammar-probe", "--out", str(work / "demo")]
    run_step("demo", bench, clone, env, demo_log)
    demo = last_json(demo_log)
    figures.update(
        demo_wall_s=demo["demo_wall_s"],
        demo_cpu_s=demo["demo_cpu_s"],
        demo_peak_rss_gib=demo["peak_rss_gb"],
    )
    figures.update(tests_s=None, tests_passed=None, tests_failed=None)
    if not args.skip_tests:
        tests_log = work / "tests.log"
        pytest = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        figures["tests_s"] = round(run_step("tests", pytest, clone, env, tests_log), 1)
        summary = (tests_log.read_text(errors="replace").strip().splitlines() or [""])[-1]
        counts = pytest_counts(summary)
        figures.update(tests_passed=counts["passed"], tests_failed=counts["failed"])

    met = targets_met(figures)
    print(f"\nfirst hour of commit {commit} on {model} (AVX-512: {avx512}, module {loaded})")
    for name, limit in LIMITS.items():
        value = figures.get(name)
        shown = "skipped" if value is None else f"{value} (at most {limit}): {met[name]}"
        print(f"  {name}: {shown}")
    print(f"  tests: {figures['tests_passed']} passed, {figures['tests_failed']} failed")
    print(f"  logs and outputs: {work}")
    print(json.dumps({"commit": commit, "cpu_model": model, "avx512": avx512,
                      "loaded_variant": loaded, **figures, "targets": met}))  # fmt: skip


if __name__ == "__main__":
    main()
