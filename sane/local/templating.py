"""Render the jinja2 templates that ship with the local-model layer.

Prompts are data: they live as files under sane/local/templates/ and render
with StrictUndefined, so a missing variable is an error rather than a blank.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import jinja2

TEMPLATES = Path(__file__).parent / "templates"


@cache
def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=False,
    )


def render(template: str, **values: Any) -> str:
    return _env().get_template(template).render(**values)
