"""A target kind `example_length`: the scored field's length in words, capped at the contract."""

from __future__ import annotations

from dataclasses import dataclass

from sane.records import OutputContract, TargetConfig
from sane.scorers import BuildContext, Target, register_kind


@dataclass
class WordCount:
    name: str
    contract: OutputContract
    fields: tuple[str, ...]
    field: str
    deterministic: bool = True

    async def score(self, record: dict[str, str], repeat: int = 0) -> float:
        return min(self.contract.max, max(self.contract.min, len(record[self.field].split())))


@register_kind("example_length")
def build(config: TargetConfig, context: BuildContext) -> Target:
    spec = context.spec
    return WordCount(config.name, config.output or spec.output, tuple(spec.fields),
                     spec.scored_field)  # fmt: skip
