"""Prompt templates are data: jinja2 files in this package, rendered in a sandbox.

The sandbox matters because user-supplied templates (judge rubrics) render with
the same machinery, and because generated text that reaches a prompt must be
treated as data, never as template code.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from jinja2 import PackageLoader, StrictUndefined
from jinja2.sandbox import SandboxedEnvironment

from sane.relations import catalogue, predicts

# Any spelling of a data tag: <data, </data, </DATA, < / data ...
_DATA_TAG = re.compile(r"<(\s*/?\s*data)", re.IGNORECASE)


@lru_cache(maxsize=1)
def _environment() -> SandboxedEnvironment:
    env = SandboxedEnvironment(
        loader=PackageLoader("sane", "prompts"),
        undefined=StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        # packaged templates do not change while a process runs: no file check per render
        auto_reload=False,
    )
    env.filters["data"] = _as_data
    # what each relation kind claims, in the kind's own words (sane.relations)
    env.filters["predicts"] = predicts
    env.globals["relation_catalogue"] = catalogue
    return env


def _as_data(text: object) -> str:
    """Neutralise tag look-alikes so example text cannot close its own data delimiter."""
    return _DATA_TAG.sub(r"&lt;\1", str(text))


def render(name: str, **context: Any) -> str:
    return _environment().get_template(name).render(**context).strip()


def messages(name: str, **context: Any) -> list[dict[str, str]]:
    """A system message and the named task prompt as the user message.

    The scorer spec goes into the system message, so every prompt of a suite
    starts with the same text, whatever its task: a local model evaluates that
    prefix once and reuses it (the LLM layer appends a task's output schema
    after it, shared by every call of that task).
    """
    system = render("system.j2")
    if "spec" in context:
        system = f"{system}\n\n{render('_spec.j2', spec=context['spec'])}"
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": render(name, **context)},
    ]
