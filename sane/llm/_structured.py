"""Structured output: ask for JSON matching a pydantic schema, parse it, explain failures.

The schema goes to the provider as `response_format` where it is supported and
into the prompt as an instruction (from a template) everywhere, so weaker
models that ignore response_format still know the shape. Parsing tolerates
markdown fences and prose around the object; a failure is summarised so it can
be fed back to the model in a repair turn.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

import jinja2
from pydantic import BaseModel, ValidationError

T = TypeVar("T", bound=BaseModel)

TEMPLATES = Path(__file__).parent / "templates"
MAX_PROBLEMS = 8
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)
_NAME_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")


@lru_cache(maxsize=1)
def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=False,
    )


def render(template: str, **values: Any) -> str:
    return _env().get_template(template).render(**values).strip()


@lru_cache(maxsize=256)
def schema_json(schema: type[BaseModel]) -> str:
    """A model's JSON schema as canonical text; building it costs milliseconds, so once."""
    return json.dumps(schema.model_json_schema(), sort_keys=True)


def _without_titles(node: Any) -> Any:
    """A JSON schema without its `title` annotations, which pydantic derives from the names
    beside them (a property that is itself called "title" stays)."""
    if isinstance(node, list):
        return [_without_titles(item) for item in node]
    if not isinstance(node, dict):
        return node
    return {
        key: (
            {name: _without_titles(sub) for name, sub in value.items()}
            if key in ("properties", "$defs") and isinstance(value, dict)
            else _without_titles(value)
        )
        for key, value in node.items()
        if key != "title"
    }


@lru_cache(maxsize=256)
def _instruction(schema: type[BaseModel], spelled_out: bool) -> str:
    """The schema as the prompt shows it: compact and without titles. A model reads the
    same constraints in about two thirds of the tokens (a recipe list's schema: 1,408 ->
    899 Qwen tokens), which every model's prompt pays for and the embedded one evaluates.

    Without `spelled_out`, the instruction leaves the schema out (see `with_instruction`).
    """
    if not spelled_out:
        return render("schema_instruction.j2", schema_json=None)
    shown = json.dumps(
        _without_titles(schema.model_json_schema()), sort_keys=True, separators=(",", ":")
    )
    return render("schema_instruction.j2", schema_json=shown)


def response_format(schema: type[BaseModel]) -> dict[str, Any]:
    """The OpenAI-style json_schema response_format for a pydantic model."""
    return {
        "type": "json_schema",
        "json_schema": {
            "name": _NAME_UNSAFE.sub("_", schema.__name__)[:64] or "response",
            "schema": json.loads(schema_json(schema)),  # a fresh copy: callers may mutate it
            "strict": False,
        },
    }


def with_instruction(
    messages: list[dict[str, str]], schema: type[BaseModel], *, spelled_out: bool = True
) -> list[dict[str, str]]:
    """The messages with the schema instruction at the end of the system message.

    In the system message, not after the question: every call of one task sends
    the same schema, so there it belongs to the prompt's shared prefix, which a
    local model evaluates once and reuses (a recipe's schema alone is about
    900 tokens); after the question it would be evaluated again on every call.

    `spelled_out=False` leaves the schema's text out, for a prompt that states the reply's
    shape itself (a `Return {...}` line) sent to a provider that holds the reply to the
    schema by itself (the embedded runtime's grammar): there the schema would be evaluated
    for nothing (a recipe list's: about 1,000 tokens, 30 CPU-seconds on a 2-core AVX2 machine).
    """
    instruction = _instruction(schema, spelled_out)
    out = [dict(m) for m in messages]
    if out and out[0].get("role") == "system":
        out[0]["content"] = f"{out[0].get('content', '')}\n\n{instruction}"
    else:
        out.insert(0, {"role": "system", "content": instruction})
    return out


def repair_turns(reply: str, problems: list[str]) -> list[dict[str, str]]:
    """The assistant's bad reply and a user turn that feeds the problems back."""
    return [
        {"role": "assistant", "content": reply},
        {"role": "user", "content": render("repair.j2", problems=problems)},
    ]


def _candidate(text: str) -> str:
    """The JSON part of a reply: a fenced block, else the outermost {...} or [...]."""
    fenced = _FENCE.search(text)
    if fenced:
        return fenced.group(1).strip()
    stripped = text.strip()
    if stripped[:1] in "{[":
        return stripped
    start, end = stripped.find("{"), stripped.rfind("}")
    if 0 <= start < end:
        return stripped[start : end + 1]
    return stripped


class SchemaInvalid(ValueError):
    """A reply that does not validate; `problems` are short, model-readable lines."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


def _problems(error: ValidationError) -> list[str]:
    lines = []
    for item in error.errors()[:MAX_PROBLEMS]:
        where = ".".join(str(part) for part in item.get("loc", ())) or "(root)"
        lines.append(f"{where}: {item.get('msg', 'invalid')}")
    extra = error.error_count() - MAX_PROBLEMS
    if extra > 0:
        lines.append(f"... and {extra} more problems")
    return lines


def parse(text: str, schema: type[T]) -> T:
    """Validate a reply against the schema, or raise SchemaInvalid."""
    try:
        return schema.model_validate_json(_candidate(text))
    except ValidationError as error:
        raise SchemaInvalid(_problems(error)) from error
