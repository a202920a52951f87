"""A comparative suite, generated offline: the tiny fixture's scripted model on a
comparative spec of the tiny criterion (the summary against a rival summary), with the
planted judges of comparative_targets.py as python targets. A module of its own (not the
conftest) so tests import it by a unique name."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml

import sane
from sane.llm import LLMSettings

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent / "fixtures"
TARGETS = [
    {"name": "always-a", "kind": "python", "ref": "comparative_targets:always_a"},
    {"name": "longer", "kind": "python", "ref": "comparative_targets:longer"},
    {"name": "exact", "kind": "python", "ref": "comparative_targets:exact"},
]
# the rival summary of each tiny example: as short or shorter, and one claim the source lacks
RIVALS = ["The council approved a park. It rained.", "Ana won. It rained.", "A bakery closed."]


def write_comparative(folder: Path, targets: list[dict[str, str]] = TARGETS) -> Path:
    """The tiny spec made comparative (summary against rival) and its examples, in `folder`."""
    shutil.copy(FIXTURES / "tiny_script.yaml", folder / "tiny_script.yaml")
    rows = [
        json.loads(line) for line in (FIXTURES / "tiny_examples.jsonl").read_text().splitlines()
    ]
    with (folder / "tiny_examples.jsonl").open("w") as out:
        for row, rival in zip(rows, RIVALS, strict=True):
            out.write(json.dumps(row | {"rival": rival}) + "\n")
    spec = yaml.safe_load((FIXTURES / "tiny_spec.yaml").read_text())
    spec["fields"]["rival"] = "another summary of the same document"
    spec |= {"compared_fields": ["summary", "rival"], "output": {"type": "pairwise"}}
    spec["targets"] = targets
    path = folder / "comparative.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def settings_in(folder: Path) -> LLMSettings:
    return LLMSettings(
        cache_path=folder / "cache.db", script_path=folder / "tiny_script.yaml", backoff_s=0.0
    )


def generate_comparative(folder: Path) -> Path:
    suite = folder / "suite.db"
    sane.generate(
        folder / "comparative.yaml", suite=suite, llm=settings_in(folder), model="scripted",
        votes=3, cases=4, max_capabilities=2, recipes_per_capability=2,
    )  # fmt: skip
    return suite
