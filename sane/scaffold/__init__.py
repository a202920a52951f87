"""`sane init`: a starter folder that works as written (a spec, examples, a rubric, a python
target, scripted answers for an offline first run, a CI gate's limits and a README).

Two starters: a pointwise judge (one answer scored 1-5, `files/`) and, with `--pairwise`, a
comparative judge (two answers compared, its output the preference for the first,
`pairwise/`). Each is a folder of packaged files written as they are, with `__NAME__` made
the spec's name; a python module is packaged as text, so sane never imports it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from sane.errors import InputError


@dataclass(frozen=True)
class Starter:
    """One starter: the packaged folder it is written from and its files (the file written
    -> the packaged file it comes from)."""

    folder: str
    files: dict[str, str]


STARTERS: dict[str, Starter] = {
    "pointwise": Starter(
        "files",
        {
            "spec.yaml": "spec.yaml",
            "examples.jsonl": "examples.jsonl",
            "judge.j2": "judge.j2",
            "my_scorers.py": "my_scorers.py.txt",  # packaged as text: never imported from sane
            "rules.yaml": "rules.yaml",
            "sane_check.yaml": "sane_check.yaml",
            "README.md": "README.md",
        },
    ),
    "pairwise": Starter(
        "pairwise",
        {
            "spec.yaml": "spec.yaml",
            "examples.jsonl": "examples.jsonl",
            "judge.j2": "judge.j2",
            "my_scorers.py": "my_scorers.py.txt",
            "rules.yaml": "rules.yaml",
            "sane_check.yaml": "sane_check.yaml",
            "README.md": "README.md",
        },
    ),
}
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def write_starter(folder: Path, name: str | None = None, kind: str = "pointwise") -> list[Path]:
    """Write the starter `kind` (pointwise or pairwise) into `folder` (created; it must not
    hold any of the files already: nothing of yours is overwritten). The spec is named
    `name`, else the folder's name."""
    starter = STARTERS[kind]
    name = name or folder.resolve().name
    if not NAME.fullmatch(name):
        raise InputError(
            None, "NAME", f"{name!r}: use letters, digits, '-', '_' or '.', starting with one"
        )
    taken = [f for f in starter.files if (folder / f).exists()]
    if taken:
        raise InputError(
            str(folder / taken[0]), None, "already exists; sane init writes only into new files"
        )
    folder.mkdir(parents=True, exist_ok=True)
    source = resources.files("sane.scaffold").joinpath(starter.folder)
    written = []
    for target, packaged in starter.files.items():
        text = source.joinpath(packaged).read_text(encoding="utf-8").replace("__NAME__", name)
        (folder / target).write_text(text, encoding="utf-8")
        written.append(folder / target)
    return written
