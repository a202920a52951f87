"""Run derived and fixed generation on one scorer and compare them (``sane baseline``).

Each generator gets its own suite file in one directory (``derived.db``,
``fixed-jrh.db``, ...), generated -- or resumed -- with the same spec, examples,
models and settings through :func:`sane.api.generate`; targets are executed on
each when asked; the comparison is then built from the suites' own reports.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from sane import api
from sane.analyses.generator_comparison import Comparison, compare_generators
from sane.generators.base import get_generator
from sane.generators.fixed_sets import baselines_for
from sane.inputs import load_spec
from sane.llm import LLMSettings
from sane.output_files import make_folder
from sane.pipeline import Progress, no_progress
from sane.pipeline.run_config import run_config
from sane.records import ExecuteConfig, RunConfig
from sane.suites.store import SuiteStore

REFERENCE = "derived"


def suite_file(suite_dir: Path, generator: str) -> Path:
    """``derived`` -> derived.db, ``fixed:jrh`` -> fixed-jrh.db, ``fixed:dir/x.yaml`` -> fixed-x.db."""
    kind, _, argument = generator.partition(":")
    stem = Path(argument).stem if argument.endswith((".yaml", ".yml")) else argument
    name = "-".join(part for part in (kind, stem) if part)
    return suite_dir / f"{re.sub(r'[^A-Za-z0-9_.-]+', '-', name)}.db"


def _prefixed(progress: Progress, generator: str) -> Progress:
    return lambda stage, done, total: progress(f"{generator} {stage}", done, total)


def run_baseline(
    spec: str | Path,
    *,
    suite_dir: str | Path,
    generators: list[str] | None = None,
    config: RunConfig | None = None,
    examples: str | Path | None = None,
    execute: bool = True,
    execution: ExecuteConfig | None = None,
    llm: LLMSettings | None = None,
    progress: Progress = no_progress,
    **options: Any,
) -> Comparison:
    """Generate (and execute) one suite per generator, ``derived`` first; compare them.

    Every suite gets the same run configuration (``config``, or its fields as keywords,
    as :func:`sane.api.generate` takes them) with its own generator, and every suite is
    executed with the same `execution` (default: every target, one repeat). Without
    `generators`, the fixed sets offered to the spec (sane.generators.baselines_for: the JRH
    set, and the comparative checks for a comparative spec)."""
    config = config or run_config(**options)
    if generators is None:
        generators = baselines_for(load_spec(spec)[0])
    names = [REFERENCE, *dict.fromkeys(g for g in generators if g != REFERENCE)]
    for name in names:
        get_generator(name)  # bad names fail before any suite is touched
    directory = Path(suite_dir)
    make_folder(directory, "--suite-dir")
    paths = [suite_file(directory, name) for name in names]
    for name, path in zip(names, paths, strict=True):
        api.generate(
            spec,
            suite=path,
            config=config.model_copy(update={"generator": name}),
            examples=examples,
            llm=llm,
            progress=_prefixed(progress, name),
        )
        if execute and _declares_targets(path):
            api.execute(
                path,
                spec=spec,  # the spec given on this run declares the targets (their code too)
                config=execution or ExecuteConfig(),
                llm=llm,
                progress=_prefixed(progress, name),
            )
    return compare_generators(paths)


def _declares_targets(path: Path) -> bool:
    store = SuiteStore(path, readonly=True)
    try:
        return bool(store.spec().targets)
    finally:
        store.close()
