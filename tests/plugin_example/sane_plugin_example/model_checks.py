"""How `example/NAME` model strings are checked: light, so checking imports no provider."""

from __future__ import annotations

from sane.llm.providers import MODEL_CHECKS


@MODEL_CHECKS.register("example")
def check(model: str) -> str | None:
    return None if model.startswith("example/") and len(model) > len("example/") else "no name"
