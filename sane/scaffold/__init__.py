"""`sane init`: a starter folder that works as written (a spec, examples, a rubric, a python
target, scripted answers for an offline first run, a CI gate's limits and a README)."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

from sane.errors import InputError

FILES = {  # the file written -> the packaged file it comes from
    "spec.yaml": "spec.yaml",
    "examples.jsonl": "examples.jsonl",
    "judge.j2": "judge.j2",
    "my_scorers.py": "my_scorers.py.txt",  # packaged as text: never imported from sane
    "rules.yaml": "rules.yaml",
    "sane_check.yaml": "sane_check.yaml",
    "README.md": "README.md",
}
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def write_starter(folder: Path, name: str | None = None) -> list[Path]:
    """Write the starter into `folder` (created; it must not hold any of the files already:
    nothing of yours is overwritten). The spec is named `name`, else the folder's name."""
    name = name or folder.resolve().name
    if not NAME.fullmatch(name):
        raise InputError(
            None, "NAME", f"{name!r}: use letters, digits, '-', '_' or '.', starting with one"
        )
    taken = [f for f in FILES if (folder / f).exists()]
    if taken:
        raise InputError(
            str(folder / taken[0]), None, "already exists; sane init writes only into new files"
        )
    folder.mkdir(parents=True, exist_ok=True)
    source = resources.files("sane.scaffold").joinpath("files")
    written = []
    for target, packaged in FILES.items():
        text = source.joinpath(packaged).read_text(encoding="utf-8").replace("__NAME__", name)
        (folder / target).write_text(text, encoding="utf-8")
        written.append(folder / target)
    return written
