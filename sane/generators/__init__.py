"""Where a suite's capabilities and recipes come from: derived by agents or a fixed set.

``get_generator("derived")`` is the method itself; ``get_generator("fixed:jrh")``
(or ``fixed:behavioral``, ``fixed:scoring-rules``, ``fixed:pairwise`` for a comparative
spec, ``fixed:PATH.yaml``) replaces
capability and recipe derivation with a fixed recipe set, keeping every later
stage the same, so the two can be compared on one scorer (``sane baseline``).

The names below load their module on first use, and the generator kinds register when a
generator is first looked up: the derived generator brings the agents with it, which a
command that only reads a suite (or needs only the code edits in `transforms`) should not
pay for.
"""

from sane._lazy import exports

_EXPORTS = {
    "FixedSet": "sane.generators.fixed_sets",
    "Generator": "sane.generators.base",
    "available_generators": "sane.generators.base",
    "baselines_for": "sane.generators.fixed_sets",
    "fixed_set_names": "sane.generators.fixed_sets",
    "get_generator": "sane.generators.base",
    "load_fixed_set": "sane.generators.fixed_sets",
    "register_generator": "sane.generators.base",
}
__all__ = [
    "FixedSet",
    "Generator",
    "available_generators",
    "baselines_for",
    "fixed_set_names",
    "get_generator",
    "load_fixed_set",
    "register_generator",
]


__getattr__ = exports(__name__, _EXPORTS)
