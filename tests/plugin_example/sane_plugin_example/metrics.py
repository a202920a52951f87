"""A built-in metric `example_exclamations`: how many `!` the scored field holds."""

from __future__ import annotations

from sane.scorers import BuildContext, BuiltinConfig, Target, register_metric
from sane_plugin_example.targets import WordCount


class Exclamations(WordCount):
    async def score(self, record: dict[str, str], repeat: int = 0) -> float:
        return min(self.contract.max, float(record[self.field].count("!")))


@register_metric("example_exclamations")
def build(config: BuiltinConfig, context: BuildContext) -> Target:
    spec = context.spec
    return Exclamations(config.name, config.output or spec.output, tuple(spec.fields),
                        spec.scored_field)  # fmt: skip
