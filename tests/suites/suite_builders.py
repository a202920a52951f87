"""Builders for scripted suites: a scorer with four targets whose pass rates differ.

A module of its own (not conftest) so tests import it by a unique name."""

from __future__ import annotations

from pathlib import Path

import yaml

import sane
from sane.llm import LLMSettings

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
HERE = Path(__file__).resolve().parent

TARGETS = [
    {"name": "careful", "kind": "python", "ref": "suite_targets:careful"},
    {"name": "spacey", "kind": "python", "ref": "suite_targets:spacey"},
    {"name": "lazy", "kind": "python", "ref": "suite_targets:constant"},
    {"name": "broken", "kind": "python", "ref": "suite_targets:broken"},
]


def write_spec(
    workdir: Path, name: str = "tiny-faithfulness", criterion: str | None = None
) -> Path:
    spec = yaml.safe_load((FIXTURES / "tiny_spec.yaml").read_text())
    spec["name"] = name
    if criterion:
        spec["criterion"] = criterion
    spec["targets"] = TARGETS
    path = workdir / f"{name}.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def build_suite(
    workdir: Path,
    settings: LLMSettings,
    suite: str,
    *,
    seed: int = 0,
    spec: str = "tiny-faithfulness",
    generator: str = "derived",
    execute: bool = True,
) -> Path:
    """Generate (n=4, tau=2: two validated families) and execute every target."""
    path = workdir / suite
    sane.generate(
        workdir / f"{spec}.yaml",
        suite=path,
        model="scripted",
        votes=3,
        cases=4,
        tau=2,
        seed=seed,
        max_capabilities=2,
        recipes_per_capability=2,
        generator=generator,
        llm=settings,
    )
    if execute:
        sane.execute(path, llm=settings, timeout_s=5, trust_suite_code=True)
    return path
