"""The target-scorer interface, building a target from its config, and the `builtin` kind.

A target is anything that gives a record (a dict of the spec's fields) a raw score under its
own output contract. Kinds register a `TargetKind` (sane.target_kind: its config, check,
freeze, trust); built-in metrics register by `metric` name under the `builtin` kind, so adding
either never touches an if-chain.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Literal, Protocol, runtime_checkable

from sane._registry import Registry
from sane.errors import InputError
from sane.records import OutputContract, ScorerSpec, TargetConfig
from sane.target_kind import TARGET_KINDS, TargetKind, register_target_kind

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


MetricFactory = Callable[[TargetConfig, BuildContext], Target]

BUILTIN_METRICS: Registry[MetricFactory] = Registry("built-in metric", group="sane.metrics")
register_metric = BUILTIN_METRICS.register


def build_target(config: TargetConfig, context: BuildContext, *, source: str = "spec") -> Target:
    """Build one target by its kind; an unknown kind is bad input naming the field."""
    kind = TARGET_KINDS.get(config.kind)
    if kind is None:
        raise InputError(source, f"targets.{config.name}.kind", TARGET_KINDS.unknown(config.kind))
    return kind.build(config, context)


def require_runtime(module: str, config: TargetConfig) -> None:
    """A built-in metric on an embedded model is bad input where its runtime is absent."""
    from sane.local.errors import missing_runtime

    problem = missing_runtime(module)
    if problem is not None:
        raise InputError("spec", f"targets.{config.name}.metric", problem)


class BuiltinConfig(TargetConfig):
    """A `builtin` target: one of the built-in metrics (`metric`), on an embedded `model`
    (sampled at `temperature`) where the metric takes one, against the spec's
    `reference_field` where it compares."""

    kind: Literal["builtin"] = "builtin"
    metric: str | None = None
    model: str | None = None
    reference_field: str | None = None
    temperature: float | None = None

    SETTINGS: ClassVar[frozenset[str]] = TargetConfig.SETTINGS | {"metric", "model", "temperature"}

    def models(self) -> list[str]:
        return [self.model] if self.model else []


def _check_builtin(config: BuiltinConfig, file: str) -> None:
    if config.metric not in BUILTIN_METRICS:
        field = f"targets.{config.name}.metric"
        raise InputError(file, field, BUILTIN_METRICS.unknown(str(config.metric)))


def _build_builtin(config: BuiltinConfig, context: BuildContext) -> Target:
    _check_builtin(config, "spec")
    return BUILTIN_METRICS[str(config.metric)](config, context)


BUILTIN = register_target_kind(
    TargetKind(
        name="builtin",
        config=BuiltinConfig,
        build=_build_builtin,
        check=_check_builtin,
        scores="pointwise",
    )
)
