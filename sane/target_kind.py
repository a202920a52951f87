"""What a target kind is, the registry of kinds, and the config every spec's target parses to.

A kind says everything the product needs to know about it, in one object, as relation and
panel kinds do: its config record (the keys a spec may give it), its load-time check, what a
suite freezes of it and hashes, whether it runs code a suite names (the trust rule), whether it
is an LLM judge (the Inspect export), and how to build it. Everything else (spec loading, the
suite's frozen targets, the API, the reports, the integrations) asks the kind, never its name.
Adding a kind is one module that registers it, named in the `sane.target_kinds` entry-point
group (sane._registry).

This module sits in the records layer so that the spec's record (sane.records) can parse each
target by its kind; the kinds themselves register from the targets layer (sane.scorers) or
from another package, and `build` takes a `sane.scorers.BuildContext`.
"""

from __future__ import annotations

import hashlib
import json
import math
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AfterValidator,
    BeforeValidator,
    ConfigDict,
    Field,
    SerializeAsAny,
    ValidationInfo,
    field_validator,
    model_validator,
)

from sane._record import Record
from sane._registry import Registry

# ------------------------------------------------------------------ shared records


class OutputContract(Record):
    """What a scorer returns: its type, range and direction.

    A `pairwise` output is a comparative judge's preference between two candidates (the
    spec's `compared_fields`): its maximum says the first is better, its minimum the second,
    its midpoint a tie; unset, its range is [-1, 1] (A better / B better / tie read as 1 / -1
    / 0, a preference strength anywhere between)."""

    type: Literal["ordinal", "continuous", "binary", "pairwise"] = "continuous"
    min: float = 0.0
    max: float = 1.0
    higher_is_better: bool = True

    @model_validator(mode="before")
    @classmethod
    def _pairwise_range(cls, data: Any) -> Any:
        """A pairwise output's range defaults to [-1, 1] (a tie at 0), not [0, 1]."""
        if isinstance(data, dict) and data.get("type") == "pairwise":
            data = {"min": -1.0, "max": 1.0} | data
        return data

    @property
    def pairwise(self) -> bool:
        return self.type == "pairwise"

    @model_validator(mode="after")
    def _range_is_proper(self) -> OutputContract:
        if not (math.isfinite(self.min) and math.isfinite(self.max)):
            raise ValueError("min and max must be finite numbers")
        if self.min >= self.max:
            raise ValueError(f"min ({self.min}) must be below max ({self.max})")
        return self

    @property
    def span(self) -> float:
        return self.max - self.min

    def normalise(self, score: float) -> float:
        """Map a raw score onto [0, 1] in the contract's own direction."""
        return (score - self.min) / self.span

    def contains(self, score: float) -> bool:
        return self.min - 1e-9 <= score <= self.max + 1e-9


def _plain_name(value: str) -> str:
    """A name a person chose (scorer, field, target): shown in terminals, XML and CSV, so a
    control character (an escape sequence, a NUL) or a bidirectional override is refused."""
    for char in value:
        if unicodedata.category(char) == "Cc" or char in _BIDI_CONTROLS:
            raise ValueError(f"holds the control character {char!r}")
    return value


_BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
Name = Annotated[str, AfterValidator(_plain_name)]


# ------------------------------------------------------------------ the config


# Every key of the one flat target record that suites were written with before each kind had
# its own config, with its value there when unset. A stored suite holds all of them for every
# target (null where unused), and its definition hashes were taken over all of them.
FLAT_DEFAULTS: dict[str, Any] = {
    "model": None,
    "prompt": None,
    "metric": None,
    "ref": None,
    "reference_field": None,
    "temperature": None,
    "reply": "text",
    "deterministic": False,
}
# The validation context key of a record read from a suite (sane.suites.store): what a spec
# would be refused for, a suite written by an earlier release may hold.
STORED = "stored"

# The keys the flat record hashed always (null where unset). Any other key is hashed only when
# a spec sets it, so a field added later never changes a stored hash. Never extend this.
ALWAYS_HASHED = frozenset(
    {"name", "kind", "model", "prompt", "metric", "ref", "reference_field", "output",
     "timeout_s", "temperature"}
)  # fmt: skip


class TargetConfig(Record):
    """One target as a spec declares it: the keys every kind has. Each kind derives its own
    config from this (its `kind` a literal, its own keys), so a key another kind reads is
    refused by name instead of stored and ignored; unknown keys are refused (a typo such as
    `timeout` for `timeout_s` would otherwise be ignored, and a key such as `api_key` stored in
    the suite in plain text)."""

    name: Name
    kind: str
    output: OutputContract | None = None
    # seconds one scoring call of this target may take; None: the run's --timeout
    timeout_s: float | None = Field(default=None, gt=0)
    # targets sharing a group are one judge under several settings (configuration sensitivity)
    config_group: Name | None = None

    # The keys that are its settings: what may differ between the targets of one config_group
    # (configuration sensitivity compares them; names and kinds do not count).
    SETTINGS: ClassVar[frozenset[str]] = frozenset({"config_group"})

    @model_validator(mode="before")
    @classmethod
    def _flat_leftovers(cls, data: Any, info: ValidationInfo) -> Any:
        """Suites written before each kind had its own config hold every key of the flat
        record, at its unset value where the kind never read it: those are dropped. In a spec,
        any other key the kind does not have stays, and is refused as an unknown field; read
        from a suite (`STORED` context), it is dropped too: the kind never read it, and the
        suite must still open (its stored hashes stay as they were)."""
        if not isinstance(data, dict):
            return data
        stored = bool(info.context and info.context.get(STORED))
        return {
            key: value
            for key, value in data.items()
            if key in cls.model_fields
            or key not in FLAT_DEFAULTS
            or not stored
            and (
                value != FLAT_DEFAULTS[key]
                or isinstance(value, bool) != isinstance(FLAT_DEFAULTS[key], bool)
            )
        }

    def settings(self) -> dict[str, Any]:
        """Its settings as a spec gave them (defaults and unset keys left out)."""
        given = self.model_dump(exclude_none=True, exclude_defaults=True)
        return {key: value for key, value in given.items() if key in self.SETTINGS}

    def models(self) -> list[str]:
        """The models its scoring calls go to (their prices are checked before a run)."""
        return []

    def hashed(self) -> dict[str, Any]:
        """The document its definition hash is taken over: the flat record's keys, always
        (null where this kind has none, so the hashes of stored suites stay), and any other
        key only where it holds other than its default. So a field added later leaves every
        hash as it was, and a hash is a function of the config alone: recomputed from a stored
        suite, it is the one the suite stored (tests/scorers/test_target_kinds.py pins them)."""
        data = {key: None for key in ALWAYS_HASHED}
        data |= self.model_dump(mode="json", include=ALWAYS_HASHED & set(type(self).model_fields))
        data |= self.model_dump(mode="json", exclude=ALWAYS_HASHED, exclude_defaults=True)
        return data


# ------------------------------------------------------------------ the kind


@dataclass(frozen=True)
class Frozen:
    """What a suite holds of a target besides its config, read when the spec is loaded: the
    text of a file it reads (a judge's rubric), and the hash of the code it runs."""

    rubric: str | None = None
    code_sha256: str | None = None


def _nothing_to_freeze(config: Any, base_dir: Path) -> Frozen:
    return Frozen()


@dataclass(frozen=True)
class TargetKind:
    """One kind of target, complete (tests/test_registries.py walks every kind).

    - `config`: its record, a `TargetConfig` whose `kind` is the literal `name`.
    - `build(config, context)`: the target (sane.scorers.Target) from its config and a
      `sane.scorers.BuildContext`; bad input is an `InputError` naming the field.
    - `check(config, file)`: what can be refused when a spec is loaded, before any import or
      call (a malformed ref, an unknown metric); None: nothing beyond its record.
    - `freeze(config, spec_dir)`: what the suite must hold so it runs wherever it is moved
      (anything the target reads from the spec's folder): hashed with the config.
    - `verify_code(target, suite)`: set for a kind that runs code the suite names (a python
      ref): a stored target of it runs only when the person running the suite chose it (a
      spec given on this run, or `--trust-suite-code`, after this check). None: it runs no
      code of the suite's.
    - `judge`: it is an LLM judge (a rubric sent to a model), which an Inspect task can run.
    - `control`: a planted control, not a candidate (a null scorer that never reads for
      meaning): every execution runs it, and reports place it apart, never ranking it among
      the user's targets (sane.scorers.null_scorers).
    - `scores`: "pointwise", "pairwise" or "either": which specs it belongs in (a pointwise
      judge's score of one text is no preference between two).
    - `wraps(config)`: for a kind that wraps another target (sane.scorers.pairwise's
      `compared`), the wrapped target's config: it runs code exactly when that one does.
    """

    name: str
    config: type[TargetConfig]
    build: Callable[[Any, Any], Any]
    check: Callable[[Any, str], None] | None = None
    freeze: Callable[[Any, Path], Frozen] = _nothing_to_freeze
    verify_code: Callable[[Any, str], None] | None = None
    judge: bool = False
    control: bool = False
    # for a kind that wraps another target (`compared`): whether a config of it runs code,
    # which then depends on the target it wraps; None: `verify_code` says it for every config
    wraps: Callable[[Any], TargetConfig] | None = None
    # what it scores: "pointwise" (one text: a comparative spec refuses it, since its score
    # is no preference; wrap it in `compared`), "pairwise" (two candidates: only a
    # comparative spec has them), or "either" (code given the whole record)
    scores: Literal["pointwise", "pairwise", "either"] = "either"

    @property
    def runs_code(self) -> bool:
        return self.verify_code is not None

    def verifier(self, config: TargetConfig) -> Callable[[Any, str], None] | None:
        """The code check a stored target of this config needs before it runs (None: it runs
        no code of the suite's): a wrapper's is its wrapped target's."""
        if (
            self.wraps is not None
            and TARGET_KINDS[self.wraps(config).kind].verifier(self.wraps(config)) is None
        ):
            return None
        return self.verify_code


TARGET_KINDS: Registry[TargetKind] = Registry("target kind", group="sane.target_kinds")


def register_target_kind(kind: TargetKind) -> TargetKind:
    """Register `kind` under its name (from a module of the `sane.target_kinds` group)."""
    return TARGET_KINDS.register(kind.name)(kind)


def kind_of(config: TargetConfig) -> TargetKind:
    return TARGET_KINDS[config.kind]


def is_control(config: TargetConfig) -> bool:
    """Whether a target is a planted control (its kind says so), not a candidate."""
    kind = TARGET_KINDS.get(config.kind)
    return kind is not None and kind.control


class _UnknownKind(TargetConfig):
    """The record of a target whose kind no package registered: refused at `kind`, naming
    the known kinds (its other keys are not read)."""

    model_config = ConfigDict(extra="allow")

    @field_validator("kind")
    @classmethod
    def _refused(cls, kind: str) -> str:
        raise ValueError(TARGET_KINDS.unknown(kind))


def _parse(data: Any, context: dict[str, Any] | None = None) -> Any:
    """A target's config by its kind's record (its errors keep their field's place)."""
    if isinstance(data, TargetConfig) or not isinstance(data, dict):
        return data
    name = data.get("kind")
    kind = TARGET_KINDS.get(name) if isinstance(name, str) else None
    record = kind.config if kind is not None else _UnknownKind
    return record.model_validate(data, context=context)


def _parse_field(data: Any, info: ValidationInfo) -> Any:
    return _parse(data, info.context)


def target_config(**data: Any) -> TargetConfig:
    """A target's config from its keys, as a spec gives them (`kind` picks the record)."""
    return _parse(data)


# A target's config in a record: parsed by its kind's record, dumped with all its own keys.
AnyTargetConfig = Annotated[SerializeAsAny[TargetConfig], BeforeValidator(_parse_field)]


def definition_sha256(config: TargetConfig, rubric_sha: str | None, code_sha: str | None) -> str:
    """The hash that identifies a target's definition: a result made under another is
    measured again (sane.pipeline), and a suite keeps only results of the definitions it holds."""
    document = {"config": config.hashed(), "rubric": rubric_sha, "code": code_sha}
    return hashlib.sha256(json.dumps(document, sort_keys=True).encode("utf-8")).hexdigest()
