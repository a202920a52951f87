"""Kill `sane generate` and `sane execute` with SIGKILL at random points, resume, compare.

Each trial works on a fresh copy of the tiny scripted suite (tests/fixtures), with
a scripted LLM judge among the targets so that execution makes LLM calls too and
every scripted call takes `--delay` seconds (the scripted model's `delay_s`), so a
kill lands inside real work. A trial:

1. starts `sane generate`, kills it (-9) at a random time into its work (after
   start-up, once it holds the suite lock), then reruns it to the end;
2. starts `sane execute`, kills it after a random time, then reruns it to the end;
3. checks: both reruns exit 0; the JSON report equals the uninterrupted reference
   (timestamps and call accounting aside); `PRAGMA integrity_check` is ok on the
   suite and the cache; the cache holds exactly the reference's calls; and no call
   key was fetched uncached (successfully) twice.

Usage:  .venv/bin/python scripts/kill_trials.py [--trials 20] [--seed 1] [--mode subprocess|fork]
`subprocess` runs the real `sane` console script; `fork` forks this (already
imported) process instead, which is much faster and is what the pytest suite uses.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
# The trials kill the pipeline; the oracle's qualification (a separate first step, resumed
# from the cache like any call) is tested on its own in tests/qualification.
GENERATE_ARGS = ["--votes", "3", "--cases", "4", "--capabilities", "2", "--recipes", "2"]
GENERATE_ARGS += ["--skip-qualify"]
JUDGE = {"name": "judge", "kind": "llm_judge", "model": "scripted/judge"}
JUDGE_RULES = [
    {"task": "judge:judge", "contains": "UNSUPPORTED", "response": "Score: 2"},
    {"task": "judge:judge", "response": "Score: 5"},
]


def prepare(work: Path, delay_s: float) -> None:
    """The tiny spec plus a scripted judge target; every scripted call takes delay_s."""
    work.mkdir(parents=True, exist_ok=True)
    shutil.copy(FIXTURES / "tiny_examples.jsonl", work / "tiny_examples.jsonl")
    spec = yaml.safe_load((FIXTURES / "tiny_spec.yaml").read_text())
    # broken errors on every case, so `sane execute` would exit 4 (nothing measured);
    # interruption is what these trials test, not a target that cannot score
    spec["targets"] = [t for t in spec["targets"] if t["name"] != "broken"] + [JUDGE]
    (work / "spec.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    script = yaml.safe_load((FIXTURES / "tiny_script.yaml").read_text())
    script["rules"] = JUDGE_RULES + script["rules"]
    script["delay_s"] = delay_s
    (work / "script.yaml").write_text(yaml.safe_dump(script), encoding="utf-8")


def command(work: Path, which: str) -> list[str]:
    common = ["--script", str(work / "script.yaml"), "--cache", str(work / "cache.db")]
    common += ["--concurrency", "2", "--quiet"]
    if which == "generate":
        spec = str(work / "spec.yaml")
        return [
            "generate",
            spec,
            "--suite",
            str(work / "suite.db"),
            "--model",
            "scripted",
            *GENERATE_ARGS,
            *common,
        ]
    # the spec declares the python targets on this run: a suite's own code runs only so
    spec = str(work / "spec.yaml")
    return ["execute", str(work / "suite.db"), "--spec", spec, "--timeout", "10", *common]


# ------------------------------------------------------------------ launching


def _child(argv: list[str]) -> None:
    """Fork mode: run the CLI in this forked child and leave without any cleanup. SIGINT
    gets Python's own handler back, as a fresh `sane` process has it: a forked child
    inherits whatever its parent (a long pytest run) left installed."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.path.insert(0, str(FIXTURES))
    from sane.cli import app

    code = 0
    try:
        app(argv, prog_name="sane")
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else 1
    os._exit(code)


SNAPSHOT: list[str] = []  # a frozen copy of the package that subprocesses import first


def freeze_package(root: Path) -> None:
    """Copy the package so edits to the checkout during a long run cannot change the runs."""
    target = root / "snapshot"
    shutil.copytree(ROOT / "sane", target / "sane", ignore=shutil.ignore_patterns("__pycache__"))
    SNAPSHOT[:] = [str(target)]


def launch(argv: list[str], mode: str) -> Any:
    if mode == "fork":
        process = multiprocessing.get_context("fork").Process(target=_child, args=(argv,))
        process.start()
        return process
    paths = [*SNAPSHOT, str(FIXTURES), str(ROOT)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths))
    sane = Path(sys.executable).parent / "sane"
    return subprocess.Popen(
        [str(sane), *argv], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )


def wait(process: Any) -> int:
    if isinstance(process, subprocess.Popen):
        _, err = process.communicate()
        if process.returncode != 0:
            print(err, file=sys.stderr)
        return process.returncode
    process.join()
    return int(process.exitcode)


def kill(process: Any) -> bool:
    """SIGKILL now; True if the process was still running (a real interruption)."""
    alive = process.poll() is None if isinstance(process, subprocess.Popen) else process.is_alive()
    if alive:
        os.kill(process.pid, signal.SIGKILL)
    wait(process)
    return alive


def _alive(process: Any) -> bool:
    if isinstance(process, subprocess.Popen):
        return process.poll() is None
    return bool(process.is_alive())


def _locked(lock: Path) -> bool:
    """Whether some process holds a lock on this file (Linux: /proc/locks)."""
    try:
        inode = lock.stat().st_ino
        lines = Path("/proc/locks").read_text().splitlines()
    except OSError:
        return False
    return any(len(f) > 5 and f[5].endswith(f":{inode}") for f in map(str.split, lines))


def wait_until_working(work: Path, process: Any, timeout_s: float = 120.0) -> bool:
    """Wait until the run holds the suite's lock: start-up is over, its work begins."""
    lock = work / "suite.db.lock"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and _alive(process):
        if _locked(lock):
            return True
        time.sleep(0.005)
    return False


def run(work: Path, which: str, mode: str) -> tuple[int, float]:
    """Run to the end: the exit code and the seconds from the start of its work to its exit."""
    process = launch(command(work, which), mode)
    wait_until_working(work, process)
    started = time.monotonic()
    code = wait(process)
    return code, time.monotonic() - started


# ------------------------------------------------------------------ checks


def integrity(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return str(conn.execute("pragma integrity_check").fetchone()[0])
    finally:
        conn.close()


def comparable(report: dict[str, Any]) -> dict[str, Any]:
    """The report without timestamps and call accounting, error items in a stable order."""
    out = {k: v for k, v in report.items() if k != "calls"}
    out["suite"] = {k: v for k, v in report["suite"].items() if k != "created"}
    errors = dict(report["errors"])
    errors["items"] = sorted(
        json.dumps({k: v for k, v in item.items() if k != "created"}, sort_keys=True)
        for item in errors.get("items", [])
    )
    out["errors"] = errors
    return out


def report_of(work: Path) -> dict[str, Any]:
    import sane

    return comparable(sane.report(work / "suite.db").model_dump(mode="json"))


def cache_keys(work: Path) -> set[str]:
    conn = sqlite3.connect(work / "cache.db")
    try:
        return {row[0] for row in conn.execute("select key from llm_calls")}
    finally:
        conn.close()


def repeated_fetches(work: Path) -> int:
    """Keys answered uncached (successfully) more than once, over every run on this suite."""
    conn = sqlite3.connect(work / "suite.db")
    try:
        rows = [json.loads(r[0]) for r in conn.execute("select json from calls")]
    finally:
        conn.close()
    fetched = Counter(r["key"] for r in rows if not r["cached"] and r["error"] is None)
    return sum(1 for n in fetched.values() if n > 1)


def progress_at_kill(work: Path, which: str) -> str:
    """Where the killed run had got to: the last finished stage, or executions stored."""
    path = work / "suite.db"
    if not path.exists():
        return "before the suite file"
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        tables = {r[0] for r in conn.execute("select name from sqlite_master")}
        if "meta" not in tables:
            return "before the schema"
        if which == "execute":
            done = conn.execute("select count(*) from executions").fetchone()[0]
            return f"{done} executions stored"
        marks = [r[0][5:] for r in conn.execute("select key from meta where key like 'done:%'")]
        order = ["capabilities", "recipes", "alignment", "cases", "case_panel", "families"]
        reached = [s for s in order if s in marks]
        return f"after {reached[-1]}" if reached else "before capabilities"
    finally:
        conn.close()


# ------------------------------------------------------------------ trials


@dataclass
class Reference:
    work: Path
    report: dict[str, Any]
    keys: set[str]
    seconds: dict[str, float]


@dataclass
class Trial:
    index: int
    killed: dict[str, bool] = field(default_factory=dict)
    kill_at_s: dict[str, float] = field(default_factory=dict)
    progress: dict[str, str] = field(default_factory=dict)
    exit_codes: dict[str, int] = field(default_factory=dict)
    report_equal: bool = False
    integrity: dict[str, str] = field(default_factory=dict)
    same_calls: bool = False
    repeated_fetches: int = -1

    @property
    def ok(self) -> bool:
        return (
            all(code == 0 for code in self.exit_codes.values())
            and self.report_equal
            and all(v == "ok" for v in self.integrity.values())
            and self.same_calls
            and self.repeated_fetches == 0
        )


def reference(root: Path, delay_s: float, mode: str) -> Reference:
    work = root / "reference"
    prepare(work, delay_s)
    seconds = {}
    for which in ("generate", "execute"):
        code, seconds[which] = run(work, which, mode)
        if code != 0:
            raise SystemExit(f"reference {which} failed with exit code {code}")
    return Reference(work, report_of(work), cache_keys(work), seconds)


def trial(index: int, root: Path, ref: Reference, rng: random.Random, mode: str) -> Trial:
    work = root / f"trial-{index:02d}"
    prepare(work, float(yaml.safe_load((ref.work / "script.yaml").read_text())["delay_s"]))
    result = Trial(index)
    for which in ("generate", "execute"):
        delay = rng.uniform(0.0, ref.seconds[which])
        process = launch(command(work, which), mode)
        wait_until_working(work, process)
        time.sleep(delay)
        result.killed[which] = kill(process)
        result.kill_at_s[which] = round(delay, 3)
        result.progress[which] = progress_at_kill(work, which)
        result.exit_codes[which], _ = run(work, which, mode)
    result.report_equal = report_of(work) == ref.report
    result.integrity = {name: integrity(work / name) for name in ("suite.db", "cache.db")}
    result.same_calls = cache_keys(work) == ref.keys
    result.repeated_fetches = repeated_fetches(work)
    return result


def run_trials(trials: int, seed: int, mode: str, delay_s: float, root: Path) -> list[Trial]:
    rng = random.Random(seed)
    if mode == "fork":
        import sane.cli  # noqa: F401 - imported once here, so forked children start at once
    if mode == "subprocess":
        freeze_package(root)
    ref = reference(root, delay_s, mode)
    return [trial(i, root, ref, rng, mode) for i in range(trials)]


def code_digest() -> str:
    """A fingerprint of the package sources: prompts decide cache keys, so a change of the
    code during a long run (another checkout being edited) would change the calls."""
    import hashlib

    digest = hashlib.sha256()
    for path in sorted((ROOT / "sane").rglob("*")):
        if path.is_file() and path.suffix in {".py", ".j2", ".yaml"}:
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def summary(results: list[Trial]) -> dict[str, Any]:
    return {
        "trials": len(results),
        "passed": sum(t.ok for t in results),
        "kills_inside_a_run": {
            w: sum(t.killed[w] for t in results) for w in ("generate", "execute")
        },
        "progress_at_kill": {
            w: dict(Counter(t.progress[w] for t in results)) for w in ("generate", "execute")
        },
        "report_equal": sum(t.report_equal for t in results),
        "integrity_ok": sum(all(v == "ok" for v in t.integrity.values()) for t in results),
        "same_calls_as_reference": sum(t.same_calls for t in results),
        "repeated_fetches": sum(max(t.repeated_fetches, 0) for t in results),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mode", choices=["subprocess", "fork"], default="subprocess")
    parser.add_argument("--delay", type=float, default=0.03, help="seconds per scripted call")
    parser.add_argument("--keep", type=Path, help="work here and keep the files")
    args = parser.parse_args()
    sys.path.insert(0, str(FIXTURES))
    root = args.keep or Path(tempfile.mkdtemp(prefix="sane-kill-"))
    started, code_before = time.monotonic(), code_digest()
    results = run_trials(args.trials, args.seed, args.mode, args.delay, root)
    for t in results:
        print(
            f"trial {t.index:2d}: {'ok  ' if t.ok else 'FAIL'} "
            f"generate killed {t.kill_at_s['generate']:.2f}s into its work "
            f"({t.progress['generate']}), execute killed {t.kill_at_s['execute']:.2f}s "
            f"into its work ({t.progress['execute']})"
        )
    seconds = round(time.monotonic() - started)
    figures = summary(results) | {"mode": args.mode, "delay_s": args.delay, "seconds": seconds}
    figures["code_changed_during_run"] = code_digest() != code_before
    print(json.dumps(figures, indent=2))
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    return 0 if figures["passed"] == figures["trials"] else 1


if __name__ == "__main__":
    sys.exit(main())
