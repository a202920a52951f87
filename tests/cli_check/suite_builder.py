"""Build the tiny scripted suite of tests/pipeline (generate, then optionally execute).

Used by the `sane check`, `sane view` and `sane review` tests, which need a real suite
file. The hand-worked counts are in tests/fixtures/tiny_script.yaml: one validated family
(rec-1-1, 3 joint-valid monotonicity cases); targets careful (3 passes), lazy (3 faults)
and broken (3 errors).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import sane
from sane.llm import LLMSettings

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def settings(workdir: Path) -> LLMSettings:
    return LLMSettings(
        cache_path=workdir / "cache.db", script_path=workdir / "tiny_script.yaml", backoff_s=0.0
    )


def build_tiny_suite(workdir: Path, *, execute: bool = True) -> Path:
    for name in ("tiny_spec.yaml", "tiny_examples.jsonl", "tiny_script.yaml"):
        shutil.copy(FIXTURES / name, workdir / name)
    if str(FIXTURES) not in sys.path:
        sys.path.insert(0, str(FIXTURES))
    suite = workdir / "suite.db"
    sane.generate(
        workdir / "tiny_spec.yaml",
        suite=suite,
        model="scripted",
        votes=3,
        cases=4,
        max_capabilities=2,
        recipes_per_capability=2,
        llm=settings(workdir),
    )
    if execute:
        sane.execute(suite, spec=workdir / "tiny_spec.yaml", llm=settings(workdir), timeout_s=5)
    return suite


def execute(workdir: Path) -> None:
    """Run the suite's targets; the spec declares them (their code runs only so)."""
    sane.execute(
        workdir / "suite.db", spec=workdir / "tiny_spec.yaml", llm=settings(workdir), timeout_s=5
    )
