"""A generator kind `example`: a fixed recipe set of sane's, under another name."""

from __future__ import annotations

from sane.generators import get_generator, register_generator


@register_generator("example", lister=lambda: ["example"])
def build(argument: str | None):
    return get_generator("fixed:jrh")
