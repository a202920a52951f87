"""Null scorers: reference targets that never read for meaning (a constant, seeded noise, a
length count), the planted controls of a ranking.

Why: a suite made mostly of invariance and no-increase tests rewards not moving, so a judge
that never moves can rank near the top (issue 51: a constant scorer passed 0.912 of an
operator-grid suite, second of ten). Running scorers known to be worthless beside the user's
targets shows where "no skill" falls in each suite's ranking; a candidate that no paired test
separates from the constant one has not been shown to be better than a scorer that never
moves. They need no model and cost nothing, so every execution can afford them.

Each is a target kind `null_scorer` with `scorer: constant | noise | length`, in the spec's own output
contract (so its scores read like the user's targets'):

- `constant`: the contract's midpoint, whatever the text;
- `noise`: a uniform draw over the contract, fixed by the scored text and `seed` (the same
  text gets the same score: repeats agree, as a deterministic judge's do);
- `length`: rises with the scored field's word count, `1 - exp(-words / 50)` over the
  contract (a scorer that rewards length and nothing else); for a comparative spec, the
  preference for the longer candidate, half the difference of the two on the contract.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Literal

from sane.records import OutputContract, TargetConfig
from sane.scorers.base import BuildContext
from sane.target_kind import TargetKind, register_target_kind

if TYPE_CHECKING:
    from sane.suites.store import SuiteStore

NULL_KIND = "null_scorer"


def _constant(text: str, seed: int) -> float:
    return 0.5


def _noise(text: str, seed: int) -> float:
    digest = hashlib.sha256(f"{seed}\0{text}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def _length(text: str, seed: int) -> float:
    return 1.0 - math.exp(-len(text.split()) / 50.0)


# name -> the fraction of the contract's range it answers for a scored text
NULL_SCORERS: dict[str, Callable[[str, int], float]] = {
    "constant": _constant,
    "noise": _noise,
    "length": _length,
}


class NullConfig(TargetConfig):
    """A `null_scorer` target: a reference scorer that never reads for meaning."""

    kind: Literal["null_scorer"] = "null_scorer"
    scorer: Literal["constant", "noise", "length"]
    seed: int = 0

    SETTINGS: ClassVar[frozenset[str]] = TargetConfig.SETTINGS | {"scorer", "seed"}


@dataclass
class NullScorer:
    """The target: the spec's contract, the scored field, one function of its text."""

    name: str
    contract: OutputContract
    fields: tuple[str, ...]
    scorer: str
    seed: int
    deterministic: bool = True

    def _one(self, record: dict[str, str]) -> float:
        function = NULL_SCORERS[self.scorer]
        fraction = function(record[self.fields[0]], self.seed)
        if len(self.fields) == 2 and self.scorer == "length":
            # comparative: the longer candidate is preferred (the verbosity-biased judge)
            fraction = (1.0 + fraction - function(record[self.fields[1]], self.seed)) / 2
        value = self.contract.min + fraction * self.contract.span
        return float(round(value)) if self.contract.type in ("ordinal", "binary") else value

    async def score(self, record: dict[str, str], repeat: int = 0) -> float:
        return self._one(record)

    async def score_batch(self, records: list[dict[str, str]]) -> list[float]:
        return [self._one(record) for record in records]


def _build(config: NullConfig, context: BuildContext) -> NullScorer:
    spec = context.spec
    return NullScorer(
        name=config.name,
        contract=config.output or spec.output,
        fields=tuple(spec.compared_fields or (spec.scored_field,)),
        scorer=config.scorer,
        seed=config.seed,
    )


NULL = register_target_kind(
    TargetKind(name=NULL_KIND, config=NullConfig, build=_build, control=True)
)


CONSTANT = "null-constant"  # the scorer that never moves, which candidates must beat


def null_targets(seed: int = 0) -> list[NullConfig]:
    """The planted controls of a ranking: one target per null scorer, named `null-NAME`."""
    return [NullConfig(name=f"null-{name}", scorer=name, seed=seed) for name in NULL_SCORERS]


def plant(store: SuiteStore) -> list[str]:
    """Put the null scorers among a suite's targets where it lacks them (every execution runs
    them: they need no model and run no code of the suite's); returns their names."""
    from sane.scorers.suite_targets import frozen

    held = {t.config.name for t in store.targets()}
    missing = [config for config in null_targets() if config.name not in held]
    if missing:
        store.put_targets(
            [frozen(config, Path("."), "sane (planted control)") for config in missing]
        )
    return [config.name for config in null_targets()]
