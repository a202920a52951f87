"""One registry type for everything that registers by name: target kinds, built-in
metrics, transforms, model routes, custom providers, model assemblers, generators and
relation kinds. A registry is a dict (look-ups, listing and `in` work as usual) with a
decorator that registers a function under one or more names, and a look-up that names
the known entries when a name is unknown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class Registry(dict[str, T]):
    def __init__(self, what: str) -> None:
        super().__init__()
        self.what = what  # "target kind", "transform", ... (for messages)

    def register(self, *names: str) -> Callable[[T], T]:
        """A decorator that registers its function under `names`."""

        def decorator(item: T) -> T:
            for name in names:
                self[name] = item
            return item

        return decorator

    def unknown(self, name: str) -> str:
        """Why `name` cannot be looked up: it is unknown, and these are known."""
        return f"unknown {self.what} {name!r} (known: {', '.join(sorted(self))})"
