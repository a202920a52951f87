"""Record a strong model's replies to the panel's prompts, as the fixture the tests replay.

Why: a simulated oracle answers from ground truth whatever a question says, and the embedded
1.5B model answers noise, so neither shows whether a careful reader can get the panel's
questions right. A strong model can. This runs, through an OpenAI-compatible server that a
strong model answers (`--api-base`), the quick and the full qualification and one small
faithfulness suite, one comparative suite (answer_preference) and its fixed:pairwise
baseline, and writes every reply into `tests/fixtures/strong_model/cache.db` (an LLM
cache: the tests replay it offline with `--max-calls 0`) with `recorded.json` (the figures
and families the replay must reproduce).

When a prompt changes, its replies no longer replay and the tests say to run this. Run it
while a strong model answers the server's requests: replies already recorded for prompts
that did not change are replayed from the fixture, so only the changed prompts are asked.
A bridge that queues each request for a strong model (or a person) to answer from the
request's text alone, never from the code or the answer key, is how the committed fixture
was made; its replies are hand-written and every figure that rests on them says so.

    .venv/bin/python scripts/record_strong_model.py --api-base http://127.0.0.1:8931/v1
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "strong_model"
MODEL = "openai/strong"
RECORDED_BASE = "http://127.0.0.1:8931/v1"  # part of every cache key: replays need this one
SUITE_OPTIONS = ["--capabilities", "3", "--recipes", "2", "--cases", "4"]
# the suites recorded: a pointwise one and a comparative one (two answers, which is better)
SUITE_SPECS = ("builtin:faithfulness", "builtin:answer_preference")
FIXED_PAIRWISE = ["--generator", "fixed:pairwise", "--cases", "4"]


def sane(*args: str, cache: Path, api_base: str, max_calls: int | None = None) -> None:
    """One `sane` command against the strong model's server, its replies cached in `cache`."""
    command = [sys.executable, "-m", "sane", *args, "--api-base", api_base,
               "--cache", str(cache), "--llm-timeout", "3000", "--concurrency", "64"]  # fmt: skip
    if max_calls is not None:
        command += ["--max-calls", str(max_calls)]
    env = {**os.environ, "OPENAI_API_KEY": os.environ.get("OPENAI_API_KEY", "none")}
    subprocess.run(command, check=True, env=env)


def suite_families(suite: Path) -> list[str]:
    """The recipe ids of the families the suite validated, in id order."""
    from sane.suites.store import SuiteStore

    store = SuiteStore(suite, readonly=True)
    try:
        return sorted(family.recipe_id for family in store.families() if family.validated)
    finally:
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--api-base", default=RECORDED_BASE)
    options = parser.parse_args()
    if options.api_base != RECORDED_BASE:
        sys.exit(f"the fixture's cache keys name {RECORDED_BASE}; serve the strong model there")
    FIXTURE.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="strong-model-"))
    cache = work / "cache.db"
    if (FIXTURE / "cache.db").exists():
        shutil.copy(FIXTURE / "cache.db", cache)
    figures = {}
    for run, extra in (("quick", ["--quick"]), ("full", [])):
        out = work / f"qualify-{run}.json"
        sane("qualify", "--oracle-model", MODEL, *extra, "--format", "json", "--out", str(out),
             cache=cache, api_base=options.api_base)  # fmt: skip
        (found,) = json.loads(out.read_text(encoding="utf-8"))
        figures[run] = {key: found[key] for key in ("calls", "accuracy", "qualifies")}
    suites = {}
    for spec in SUITE_SPECS:
        suites[spec] = work / f"{spec.removeprefix('builtin:')}.db"
        sane("generate", spec, "--suite", str(suites[spec]), "--model", MODEL,
             "--oracle-model", MODEL, *SUITE_OPTIONS, cache=cache, api_base=options.api_base)  # fmt: skip
    fixed = work / "answer_preference_fixed.db"
    sane("generate", "builtin:answer_preference", "--suite", str(fixed), "--model", MODEL,
         "--oracle-model", MODEL, *FIXED_PAIRWISE, cache=cache, api_base=options.api_base)  # fmt: skip
    with sqlite3.connect(cache) as db:
        db.execute("vacuum")
    shutil.copy(cache, FIXTURE / "cache.db")
    recorded = {
        "how": "hand-written replies of a strong model answering each request from its text alone "
        "(no code, no answer key), through a loopback OpenAI-compatible bridge",
        "recorded": datetime.now(UTC).date().isoformat(),
        "model": MODEL,
        "api_base": RECORDED_BASE,
        "suite": ["generate", "builtin:faithfulness", *SUITE_OPTIONS],
        "qualification": figures,
        "validated_families": suite_families(suites["builtin:faithfulness"]),
        # a comparative suite: which of two answers is better (a pairwise judge's spec)
        "pairwise_suite": ["generate", "builtin:answer_preference", *SUITE_OPTIONS],
        "pairwise_validated_families": suite_families(suites["builtin:answer_preference"]),
        # the comparative baseline (code edits of the first answer), validated by the panel
        "fixed_pairwise_suite": ["generate", "builtin:answer_preference", *FIXED_PAIRWISE],
        "fixed_pairwise_validated_families": suite_families(fixed),
    }
    (FIXTURE / "recorded.json").write_text(json.dumps(recorded, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(recorded))


if __name__ == "__main__":
    main()
