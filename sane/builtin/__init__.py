"""The scorer specs that ship with sane, addressed as `builtin:NAME`.

Why: a user (and `sane demo`) should be able to try the method on the SANE
paper's five criteria without writing a spec, its examples and judge rubrics
first. Resolving `builtin:NAME` here, in one place, keeps the CLI and the spec
loader ignorant of where the package keeps its data files.
"""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from sane.errors import InputError

BUILTIN_PREFIX = "builtin:"
_SPEC_SUFFIX = ".yaml"


def _specs_dir() -> Traversable:
    return files(__name__) / "specs"


def builtin_names() -> list[str]:
    """The names of the packaged specs, sorted (e.g. `faithfulness`)."""
    return sorted(
        entry.name.removesuffix(_SPEC_SUFFIX)
        for entry in _specs_dir().iterdir()
        if entry.is_file() and entry.name.endswith(_SPEC_SUFFIX)
    )


def resolve_spec_path(ref: str) -> Path:
    """Map `builtin:NAME` to the packaged YAML file; any other ref is a plain path."""
    if not ref.startswith(BUILTIN_PREFIX):
        return Path(ref)
    name = ref.removeprefix(BUILTIN_PREFIX)
    known = builtin_names()
    if name not in known:
        raise InputError(
            None, "spec", f"unknown built-in spec '{name}' (known: {', '.join(known)})"
        )
    resource = _specs_dir() / f"{name}{_SPEC_SUFFIX}"
    if not isinstance(resource, Path):
        # Examples and judge prompts are read relative to the spec file, so the
        # spec must be a real file (not inside a zip archive).
        raise InputError(None, "spec", f"built-in spec '{name}' is not on the file system")
    return resource
