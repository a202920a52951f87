"""The one YAML reader for user files (specs, fixed recipe sets): plain data, strictly.

PyYAML's safe loader keeps the last of two equal keys without a word (a spec
whose second `criterion:` silently replaces the first) and turns `2001-13-01`
into a date, or into a traceback when it is not one. Here a duplicate key is an
error with its line, and timestamps stay strings, as every field of a spec is.

It parses with libyaml (PyYAML's C loader) where PyYAML was built with it, as its wheels
are: about 0.2 ms for a built-in spec against 1.7 ms in pure Python, on the way to every
command's first call; the strict rules are the same Python code either way.
"""

from __future__ import annotations

from typing import Any

import yaml

_SAFE_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class StrictLoader(_SAFE_LOADER):  # type: ignore[misc,valid-type]
    """The safe loader without implicit timestamps, refusing duplicate mapping keys."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                duplicate = key in seen
            except TypeError:  # an unhashable key; the base class reports it
                break
            if duplicate:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


StrictLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def load(text: str) -> Any:
    """Parse YAML text as plain data (raises yaml.YAMLError with a mark on bad input)."""
    return yaml.load(text, Loader=StrictLoader)  # a safe loader: plain data only
