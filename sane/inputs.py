"""Loading a scorer spec and its examples, refusing bad input with a one-line error.

Every failure names the file and the field, because the user has to find and
fix it; pydantic's multi-line reports are condensed to their first problem.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from sane import _yaml as strict_yaml
from sane.builtin import resolve_spec_path
from sane.errors import InputError
from sane.llm import model_problem
from sane.records import Example, ScorerSpec, TargetConfig
from sane.target_kind import kind_of

R = TypeVar("R", bound=BaseModel)

# A key that names a credential: a spec is stored in its suite, and a suite is mailed around.
SECRET_KEY = re.compile(
    r"(^|_)(api_?key|key|token|secret|password|passwd|credentials?)$", re.IGNORECASE
)


def _field_path(loc: tuple[object, ...], data: dict[str, Any]) -> str:
    """A pydantic location as the spec reads: `targets.NAME.KEY`, not `targets.0.KEY`."""
    parts = [str(part) for part in loc]
    targets = data.get("targets")
    if len(parts) >= 2 and parts[0] == "targets" and isinstance(targets, list):
        index = loc[1]
        if isinstance(index, int) and 0 <= index < len(targets):
            target = targets[index]
            name = target.get("name") if isinstance(target, dict) else None
            if isinstance(name, str) and name and name.isprintable():
                parts[1] = name
    return ".".join(parts) or "(top level)"


def _first_problem(error: ValidationError, data: dict[str, Any]) -> tuple[str, str]:
    first = error.errors()[0]
    field = _field_path(tuple(first["loc"]), data)
    message = first["msg"].removeprefix("Value error, ")
    if first["type"] == "extra_forbidden":
        message = "unknown field"
    elif first["type"] == "missing":
        message = "missing required field"
    return field, message


def read_yaml_mapping(path: Path, what: str) -> dict[str, Any]:
    """A user's YAML file (a spec, a gate's limits) as a mapping; every problem is bad
    input naming the file (and the line, for bad YAML)."""
    if not path.is_file():
        raise InputError(str(path), None, f"{what} file not found")
    try:
        data = strict_yaml.load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark else None
        raise InputError(str(path), where, f"not valid YAML ({getattr(exc, 'problem', exc)})")
    except UnicodeDecodeError:
        raise InputError(str(path), None, "not a UTF-8 text file") from None
    if not isinstance(data, dict):
        raise InputError(str(path), None, f"a {what} must be a YAML mapping")
    return data


def load_record_file(path: Path, model: type[R], what: str) -> R:
    """A YAML file validated as `model`; the first problem names its field."""
    data = read_yaml_mapping(path, what)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        field, message = _first_problem(exc, data)
        raise InputError(str(path), field, message) from None


def load_spec(ref: str | Path) -> tuple[ScorerSpec, Path]:
    """Parse a spec file (or `builtin:NAME`); return it with the file's path."""
    path = resolve_spec_path(str(ref))
    data = read_yaml_mapping(path, "spec")
    _refuse_secrets(data, path)
    try:
        spec = ScorerSpec.model_validate(data)
    except ValidationError as exc:
        field, message = _first_problem(exc, data)
        raise InputError(str(path), field, message) from None
    except (RecursionError, ValueError):  # a self-referencing YAML anchor
        raise InputError(
            str(path), None, "a spec must be plain data (no recursive anchors)"
        ) from None
    _check_targets(spec, path)
    return spec, path


def _refuse_secrets(data: dict[str, Any], path: Path) -> None:
    """A credential in a spec would be stored in the suite in plain text: refused by name,
    before anything else is read, with where it belongs instead."""
    targets = data.get("targets")
    places = [("", data)] + [
        (_field_path(("targets", i), data) + ".", target)
        for i, target in enumerate(targets if isinstance(targets, list) else [])
        if isinstance(target, dict)
    ]
    for prefix, mapping in places:
        for key in mapping:
            if isinstance(key, str) and SECRET_KEY.search(key):
                raise InputError(
                    str(path),
                    f"{prefix}{key}",
                    "a secret does not belong in a spec (its suite would store it); set the "
                    "provider's environment variable instead (e.g. OPENAI_API_KEY)",
                )


def _check_targets(spec: ScorerSpec, path: Path) -> None:
    """Refuse what each target's kind can refuse now (an unknown metric, a malformed ref, an
    unknown model), not after an hour of generation. The record already refused an unknown
    kind and any key the kind does not have."""
    seen: set[str] = set()
    for target in spec.targets:
        if target.name in seen:
            raise InputError(str(path), f"targets.{target.name}.name", "duplicate target name")
        seen.add(target.name)
        kind = kind_of(target)
        _fits_the_spec(spec, target, kind.scores, path)
        if kind.check is not None:
            kind.check(target, str(path))
        for model in target.models():
            problem = model_problem(model)
            if problem is not None:
                raise InputError(str(path), f"targets.{target.name}.model", problem)


def _fits_the_spec(spec: ScorerSpec, target: TargetConfig, scores: str, path: Path) -> None:
    """A pointwise target in a comparative spec would have its score of one answer read as a
    preference between two, and a pairwise one has no second candidate in a pointwise spec."""
    field = f"targets.{target.name}.kind"
    if spec.comparative and scores == "pointwise":
        raise InputError(
            str(path), field,
            f"a {target.kind} target scores one text, not a preference between "
            f"{' and '.join(spec.compared_fields or [])}: wrap it as "
            f"{{kind: compared, target: {{kind: {target.kind}, ...}}}}",
        )  # fmt: skip
    if not spec.comparative and scores == "pairwise":
        raise InputError(
            str(path), field,
            f"a {target.kind} target compares two candidates: the spec needs compared_fields "
            "and output type pairwise",
        )  # fmt: skip


def examples_path(spec: ScorerSpec, spec_path: Path, override: str | Path | None) -> Path:
    if override is not None:
        return Path(override)
    if spec.examples is None:
        raise InputError(str(spec_path), "examples", "no examples file given (--examples or spec)")
    return spec_path.parent / spec.examples


def _parse_json(path: Path, text: str, line: int) -> object:
    """One JSON document; whatever the parser refuses is bad input naming its line."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"line {line + exc.lineno - 1}"
        raise InputError(str(path), where, f"not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise InputError(str(path), f"line {line}", "JSON nested too deeply") from None
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        raise InputError(str(path), f"line {line}", f"not usable JSON ({exc})") from None


def load_examples(spec: ScorerSpec, path: Path) -> list[Example]:
    """Read JSONL (or a JSON list) records that carry every field the spec declares."""
    if not path.is_file():
        raise InputError(str(path), None, "examples file not found")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(str(path), None, "not a UTF-8 text file") from None
    if not text.strip():
        raise InputError(str(path), None, "examples file is empty")
    if text.lstrip().startswith("["):
        rows = _parse_json(path, text, 1)
        if not isinstance(rows, list):
            raise InputError(str(path), None, "a JSON examples file must be a list of objects")
        numbered = list(enumerate(rows, start=1))
        label = "record"
    else:
        numbered = [
            (number, _parse_json(path, line, number))
            for number, line in enumerate(text.splitlines(), start=1)
            if line.strip()
        ]
        label = "line"
    if not numbered:
        raise InputError(str(path), None, "examples file has no records")
    examples: list[Example] = []
    for number, row in numbered:
        if not isinstance(row, dict):
            raise InputError(str(path), f"{label} {number}", "each example must be a JSON object")
        for field in spec.fields:
            value = row.get(field)
            if not isinstance(value, str) or not value.strip():
                raise InputError(
                    str(path), f"{label} {number}.{field}", "missing or empty (declared in spec)"
                )
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise InputError(
                    str(path),
                    f"{label} {number}.{field}",
                    "holds a lone surrogate (not UTF-8 text)",
                ) from None
        examples.append({field: row[field] for field in spec.fields})
    return examples
