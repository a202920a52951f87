"""The target-scorer interface and the registries that build targets from a spec.

A target is anything that gives a record (a dict of the spec's fields) a raw
score under its own output contract. Adapters register by `kind`; built-in
metrics register by `metric` name, so adding one never touches an if-chain.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from sane._registry import Registry
from sane.errors import InputError
from sane.records import OutputContract, ScorerSpec, TargetConfig

if TYPE_CHECKING:
    from sane.llm import LLMClient


@runtime_checkable
class Target(Protocol):
    """A scorer under test. `score` may raise; the executor records that as an error.

    A target whose calls queue for a resource that serves one at a time (a judge on an
    embedded model) may name it in a `serial_key` attribute: the executor then gives its
    calls turns on that key and starts each call's timeout when its turn comes.
    """

    name: str
    contract: OutputContract
    fields: tuple[str, ...]
    deterministic: bool

    async def score(self, record: dict[str, str], repeat: int = 0) -> float: ...


@runtime_checkable
class BatchTarget(Target, Protocol):
    """A target that scores many records in one call (local metrics batch well)."""

    async def score_batch(self, records: list[dict[str, str]]) -> list[float]: ...


@dataclass(frozen=True)
class BuildContext:
    """What an adapter may need besides its own config.

    A suite's targets are built from what the suite holds: `rubrics` gives each judge's rubric
    text by target name. A spec just loaded has its files beside it, in `base_dir`, and
    `example` (its first example) to try what can be tried before any call: a judge renders
    its rubric on it, so a misspelt field is refused at load, not after a paid stage.
    """

    spec: ScorerSpec
    base_dir: Path | None = None
    llm: LLMClient | None = None
    rubrics: Mapping[str, str] = field(default_factory=dict)
    example: Mapping[str, str] | None = None


TargetFactory = Callable[[TargetConfig, BuildContext], Target]
MetricFactory = Callable[[TargetConfig, BuildContext], Target]

TARGET_KINDS: Registry[TargetFactory] = Registry("target kind", group="sane.target_kinds")
BUILTIN_METRICS: Registry[MetricFactory] = Registry("built-in metric", group="sane.metrics")
register_kind = TARGET_KINDS.register
register_metric = BUILTIN_METRICS.register


def build_target(config: TargetConfig, context: BuildContext, *, source: str = "spec") -> Target:
    """Build one target; an unknown kind or metric is bad input naming the field."""
    factory = TARGET_KINDS.get(config.kind)
    if factory is None:
        raise InputError(
            source,
            f"targets.{config.name}.kind",
            TARGET_KINDS.unknown(config.kind),
        )
    return factory(config, context)


def require_runtime(module: str, config: TargetConfig) -> None:
    """A built-in metric on an embedded model is bad input where its runtime is absent."""
    from sane.local.errors import missing_runtime

    problem = missing_runtime(module)
    if problem is not None:
        raise InputError("spec", f"targets.{config.name}.metric", problem)


@register_kind("builtin")
def _builtin(config: TargetConfig, context: BuildContext) -> Target:
    factory = BUILTIN_METRICS.get(config.metric or "")
    if factory is None:
        raise InputError(
            "spec",
            f"targets.{config.name}.metric",
            BUILTIN_METRICS.unknown(str(config.metric)),
        )
    return factory(config, context)
