"""Where a suite's capabilities and recipes come from: derived by agents or a fixed set.

``get_generator("derived")`` is the method itself; ``get_generator("fixed:jrh")``
(or ``fixed:behavioral``, ``fixed:scoring-rules``, ``fixed:PATH.yaml``) replaces
capability and recipe derivation with a fixed recipe set, keeping every later
stage the same, so the two can be compared on one scorer (``sane baseline``).
"""

from sane.generators import derived, fixed_sets, library  # noqa: F401  (importing registers the kinds)
from sane.generators.base import Generator, available_generators, get_generator, register_generator
from sane.generators.fixed_sets import FixedSet, fixed_set_names, load_fixed_set

__all__ = [
    "FixedSet",
    "Generator",
    "available_generators",
    "fixed_set_names",
    "get_generator",
    "load_fixed_set",
    "register_generator",
]
