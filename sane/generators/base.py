"""The generator registry: who supplies a suite's capabilities and recipes.

The method's later stages (alignment panel, cases, case panel, families,
execution) do not care where recipes come from, so the source is pluggable:
``derived`` asks the agents (the method itself), ``fixed:NAME`` reads a fixed
recipe set (a baseline). A generator name is ``KIND`` or ``KIND:ARGUMENT``;
each kind registers a factory that gets the argument.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from sane._registry import Registry
from sane.errors import InputError
from sane.records import Capability, Example, Recipe, RunConfig, ScorerSpec

if TYPE_CHECKING:  # the client (litellm) loads when a run starts, not on import
    from sane.llm import LLMClient

OPTION = "--generator"


class Generator(Protocol):
    """Supplies capabilities, then the recipes of each capability."""

    name: str

    async def capabilities(
        self, llm: LLMClient, spec: ScorerSpec, examples: list[Example], config: RunConfig
    ) -> list[Capability]: ...

    async def recipes(
        self, llm: LLMClient, spec: ScorerSpec, capability: Capability, config: RunConfig
    ) -> tuple[list[Recipe], list[str]]:
        """The capability's recipes and the reasons any candidate was dropped as malformed."""
        ...


Factory = Callable[[str | None], Generator]
KINDS: Registry[Factory] = Registry("generator", group="sane.generators")
LISTERS: Registry[Callable[[], list[str]]] = Registry("generator lister", group="sane.generators")


def register_generator(
    kind: str, *, lister: Callable[[], list[str]] | None = None
) -> Callable[[Factory], Factory]:
    """Register a factory for ``kind``; ``lister`` names the full generator strings it offers."""

    def decorator(factory: Factory) -> Factory:
        LISTERS[kind] = lister or (lambda: [kind])
        return KINDS.register(kind)(factory)

    return decorator


def get_generator(name: str) -> Generator:
    """The generator a name selects, or InputError naming the choices."""
    kind, _, argument = name.partition(":")
    factory = KINDS.get(kind)
    if factory is None:
        raise InputError(
            None, OPTION, f"unknown generator {name!r} (known: {', '.join(available_generators())})"
        )
    return factory(argument or None)


def available_generators() -> list[str]:
    """Every generator string: the method itself first, then the others by name (whatever
    order their modules happened to be imported in)."""
    kinds = sorted(KINDS, key=lambda kind: (kind != "derived", kind))
    return [name for kind in kinds for name in LISTERS[kind]()]
