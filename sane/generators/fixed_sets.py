"""Fixed recipe sets: the baselines a derived suite is compared with.

A fixed set is a YAML file in ``sane/generators/fixed/`` (or any path given as
``fixed:PATH.yaml``) holding capabilities and their recipes: instruction,
variant roles, expected relation, requirement and, for mechanical recipes, the
name of a code transform. The same recipes go to every scorer -- that is what
makes it a baseline -- except that relations, written for a scorer whose higher
score is better, are mirrored for a lower-is-better output contract (a fixed
harness is told which end of the scale is "bad"; it is not told the criterion's
semantics, which is where its expected directions go wrong).

A set says which specs it is offered to (`specs`): `any`, or `comparative` for a set whose
recipes are checks of a comparative judge (``fixed:pairwise``). `sane baseline` compares a
comparative spec's derived suite with those too; a pointwise spec gets one only by name.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from sane import _yaml as strict_yaml
from sane._registry import Registry
from sane.edits import TRANSFORMS
from sane.errors import InputError
from sane.generators.base import OPTION, register_generator
from sane.records import (
    Capability,
    Example,
    Recipe,
    Relation,
    Requirement,
    RunConfig,
    ScorerSpec,
)
from sane.relations import mirror

if TYPE_CHECKING:  # the client (litellm) loads when a run starts, not on import
    from sane.llm import LLMClient

KEY_PATTERN = r"^[a-z0-9][a-z0-9-]*$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FixedRecipe(_Strict):
    key: str = Field(pattern=KEY_PATTERN)
    name: str = Field(min_length=1)
    instruction: str = Field(min_length=1)
    variant_roles: list[str] = Field(default_factory=lambda: ["original", "perturbed"])
    relation: Relation
    rationale: str = Field(min_length=1)
    requirement: Requirement | None = None
    transform: str | None = None

    @field_validator("transform")
    @classmethod
    def _known_transform(cls, value: str | None) -> str | None:
        if value is not None and value not in TRANSFORMS:
            raise ValueError(TRANSFORMS.unknown(value))
        return value


class FixedCapability(_Strict):
    key: str = Field(pattern=KEY_PATTERN)
    name: str = Field(min_length=1)
    description: str = Field(min_length=1)
    requirement: Requirement
    recipes: list[FixedRecipe] = Field(min_length=1)


class FixedSet(_Strict):
    """One fixed recipe set; every recipe must build a valid :class:`Recipe`."""

    name: str = Field(min_length=1)
    title: str = Field(min_length=1)
    source: str = Field(min_length=1)
    # the specs it is offered to: every spec, or comparative ones only (by name to others)
    specs: Literal["any", "comparative"] = "any"
    capabilities: list[FixedCapability] = Field(min_length=1)

    @model_validator(mode="after")
    def _keys_unique_and_recipes_valid(self) -> FixedSet:
        for label, keys in (
            ("capability", [c.key for c in self.capabilities]),
            ("recipe", [r.key for c in self.capabilities for r in c.recipes]),
        ):
            duplicates = sorted({k for k in keys if keys.count(k) > 1})
            if duplicates:
                raise ValueError(f"duplicate {label} keys {duplicates}")
        for capability in self.capabilities:
            for higher_is_better in (True, False):
                self.recipes_of(capability, generator="check", higher_is_better=higher_is_better)
        return self

    def capability_records(self) -> list[Capability]:
        return [
            Capability(
                id=capability_id(c.key),
                name=c.name,
                description=c.description,
                requirement=c.requirement,
            )
            for c in self.capabilities
        ]

    def recipes_of(
        self, capability: FixedCapability, *, generator: str, higher_is_better: bool
    ) -> list[Recipe]:
        return [
            Recipe(
                id=recipe_id(r.key),
                capability_id=capability_id(capability.key),
                requirement=r.requirement or capability.requirement,
                name=r.name,
                instruction=r.instruction,
                variant_roles=list(r.variant_roles),
                relation=r.relation if higher_is_better else mirror(r.relation),
                rationale=r.rationale,
                generator=generator,
                transform=r.transform,
            )
            for r in capability.recipes
        ]

    def capability(self, capability_id_: str) -> FixedCapability:
        for c in self.capabilities:
            if capability_id(c.key) == capability_id_:
                return c
        raise KeyError(capability_id_)


def capability_id(key: str) -> str:
    return f"cap-{key}"


def recipe_id(key: str) -> str:
    return f"rec-{key}"


# -------------------------------------------------------------------- loading


FixedSetFolder = Callable[[], "resources.abc.Traversable | Path"]
FIXED_SET_FOLDERS: Registry[FixedSetFolder] = Registry(
    "fixed recipe set folder", group="sane.fixed_sets"
)
"""Folders of fixed recipe sets (`NAME.yaml` each) by name: sane's own, and any another
package registers; `fixed:NAME` finds a set in any of them."""


@FIXED_SET_FOLDERS.register("builtin")
def _packaged() -> resources.abc.Traversable:
    return resources.files("sane.generators").joinpath("fixed")


def _sets() -> dict[str, resources.abc.Traversable | Path]:
    """Every registered set by name (sane's folder first: an outside set cannot shadow it)."""
    found: dict[str, resources.abc.Traversable | Path] = {}
    for folder in FIXED_SET_FOLDERS.values():
        for entry in folder().iterdir():
            if entry.name.endswith(".yaml"):
                found.setdefault(entry.name.removesuffix(".yaml"), entry)
    return found


def fixed_set_names() -> list[str]:
    """The fixed sets shipped with the package and those other packages register."""
    return sorted(_sets())


def _read(name: str) -> tuple[str, str]:
    """(where, text) of a packaged set by name, or of a YAML file given by path."""
    if name.endswith((".yaml", ".yml")):
        path = Path(name)
        if not path.is_file():
            raise InputError(name, OPTION, "fixed recipe set file not found")
        return name, path.read_text(encoding="utf-8")
    entry = _sets().get(name)
    if entry is None or not entry.is_file():
        raise InputError(
            None,
            OPTION,
            f"unknown fixed set {name!r} (shipped: {', '.join(fixed_set_names())}; "
            "or give a path to a .yaml file)",
        )
    return f"fixed:{name}", entry.read_text(encoding="utf-8")


@lru_cache(maxsize=32)
def load_fixed_set(name: str) -> FixedSet:
    """Load and validate a fixed set; a bad file is an InputError naming the field."""
    where, text = _read(name)
    try:
        return FixedSet.model_validate(strict_yaml.load(text))
    except yaml.YAMLError as exc:
        raise InputError(where, None, f"not valid YAML: {exc}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or None
        raise InputError(where, field, first["msg"]) from None


DEFAULT_BASELINE = "fixed:jrh"


def baselines_for(spec: ScorerSpec) -> list[str]:
    """The fixed sets a derived suite of `spec` is compared with when none is named: the JRH
    set, and for a comparative spec every set offered to comparative specs (their checks of
    position-free verbosity, self-praise and identity mean nothing to a pointwise scorer
    unless its author asks for them)."""
    offered = [DEFAULT_BASELINE]
    if spec.comparative:
        offered += [
            f"fixed:{name}"
            for name in fixed_set_names()
            if load_fixed_set(name).specs == "comparative"
        ]
    return offered


# ------------------------------------------------------------------ generator


class FixedGenerator:
    """Capabilities and recipes read from a fixed set; no model call."""

    def __init__(self, name: str) -> None:
        self.set_name = name
        self.name = f"fixed:{name}"
        self.fixed = load_fixed_set(name)

    async def capabilities(
        self, llm: LLMClient, spec: ScorerSpec, examples: list[Example], config: RunConfig
    ) -> list[Capability]:
        return self.fixed.capability_records()

    async def recipes(
        self, llm: LLMClient, spec: ScorerSpec, capability: Capability, config: RunConfig
    ) -> tuple[list[Recipe], list[str]]:
        recipes = self.fixed.recipes_of(
            self.fixed.capability(capability.id),
            generator=config.generator,
            higher_is_better=spec.output.higher_is_better,
        )
        return recipes, []


@register_generator("fixed", lister=lambda: [f"fixed:{n}" for n in fixed_set_names()])
def _fixed(argument: str | None) -> FixedGenerator:
    if not argument:
        raise InputError(
            None, OPTION, f"name the fixed set: fixed:NAME ({', '.join(fixed_set_names())})"
        )
    return FixedGenerator(argument)
