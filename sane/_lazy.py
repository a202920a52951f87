"""Names a package exports, loaded from their module on first use.

Why: `sane --help`, `sane report` and `sane check` must start in a fraction of a second,
and a package's `__init__` that imports every submodule would pull in litellm, the
statistics or the agents for every command. A package sets `__getattr__ = exports(...)`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module


def exports(package: str, names: Mapping[str, str]) -> Callable[[str], object]:
    """A module `__getattr__` that loads `names[name]` (a module path) on first use."""

    def __getattr__(name: str) -> object:
        if name in names:
            return getattr(import_module(names[name]), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
