"""One registry type, and one way in, for everything that registers by name: target kinds,
built-in metrics, relation kinds, generators, transforms, model routes and checks, custom
providers, local models.

A registry is a dict (look-ups, listing and `in` work as usual) with a decorator that registers
a function under one or more names, and a look-up that names the known entries when a name is
unknown. Registries with an entry-point `group` fill themselves on first read: each entry
point of that group names a module, and importing it runs its registration decorators. That is
how sane's own kinds are found (listed in its pyproject.toml) and how another package adds
kinds of its own, as Inspect AI loads its extensions: no module keeps a hand-made import list,
and a kind is never missing because nothing had imported its module yet.

An outside package declares, in its pyproject.toml::

    [project.entry-points."sane.target_kinds"]
    my_kinds = "my_package.sane_kinds"     # a module that uses @register_kind(...)
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import Any, TypeVar

T = TypeVar("T")

REGISTRIES: list[Registry[Any]] = []  # every registry made, for the test that walks them all


@cache
def _group(group: str) -> tuple[EntryPoint, ...]:
    """The entry points of one group: sane's own first, then each package's, in name order
    (installers write them sorted, so a name that begins with its position orders the group)."""
    found = entry_points(group=group)
    return tuple(sorted(found, key=lambda point: (not _own(point), point.name)))


def _own(point: EntryPoint) -> bool:
    return point.value.split(".", 1)[0].split(":", 1)[0] == "sane"


def load_group(group: str) -> None:
    """Import every module the group's entry points name (each registers what it defines).
    A module that cannot be imported is named, never skipped: a kind would vanish."""
    points = _group(group)
    if not any(_own(point) for point in points):
        raise RegistryError(
            f"sane's own {group} entry points are not installed (an install older than this "
            "code?): reinstall the package, e.g. pip install -e ."
        )
    for point in points:
        try:
            point.load()
        except Exception as exc:
            raise RegistryError(
                f"the {group} entry point {point.name!r} ({point.value}) cannot be loaded: "
                f"{type(exc).__name__}: {exc}"
            ) from exc


class RegistryError(RuntimeError):
    """An installed package's entry point names a module that cannot be imported."""


class Registry(dict[str, T]):
    def __init__(self, what: str, group: str | None = None) -> None:
        super().__init__()
        self.what = what  # "target kind", "transform", ... (for messages)
        self.group = group  # the entry-point group that fills it, if any
        self._filled = group is None
        self._filling = threading.RLock()
        REGISTRIES.append(self)

    def register(self, *names: str) -> Callable[[T], T]:
        """A decorator that registers its function under `names`."""

        def decorator(item: T) -> T:
            for name in names:
                dict.__setitem__(self, name, item)
            return item

        return decorator

    def fill(self) -> Registry[T]:
        """Load the entry-point group once (registration during the load goes straight in)."""
        if self._filled or self.group is None:
            return self
        with self._filling:
            if not self._filled:
                self._filled = True
                load_group(self.group)
        return self

    def unknown(self, name: str) -> str:
        """Why `name` cannot be looked up: it is unknown, and these are known."""
        return f"unknown {self.what} {name!r} (known: {', '.join(sorted(self.fill()))})"

    # every read fills the registry first
    def __getitem__(self, name: str) -> T:
        return dict.__getitem__(self.fill(), name)

    def __contains__(self, name: object) -> bool:
        return dict.__contains__(self.fill(), name)

    def __iter__(self) -> Iterator[str]:
        return dict.__iter__(self.fill())

    def __len__(self) -> int:
        return dict.__len__(self.fill())

    def get(self, name: str, default: Any = None) -> Any:
        return dict.get(self.fill(), name, default)

    def keys(self) -> Any:
        return dict.keys(self.fill())

    def values(self) -> Any:
        return dict.values(self.fill())

    def items(self) -> Any:
        return dict.items(self.fill())

    def setdefault(self, name: str, default: Any = None) -> Any:
        return dict.setdefault(self.fill(), name, default)
