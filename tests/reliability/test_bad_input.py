"""Bad input through the real CLI: one line on stderr naming the file and the field,
exit code 2, no traceback, and an existing suite file left byte-for-byte unchanged.
Plus property tests: random mutations of a valid spec load or raise InputError, never crash.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import string
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reliability_helpers import cli, scripted_args

from sane.errors import InputError
from sane.inputs import load_spec


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def built_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One real suite (generated once), copied per test."""
    import shutil

    from reliability_helpers import FIXTURES, TINY

    work = tmp_path_factory.mktemp("suite")
    for name in TINY:
        shutil.copy(FIXTURES / name, work / name)
    code, _, err = cli(
        "generate", work / "tiny_spec.yaml", "--suite", work / "suite.db", *scripted_args(work)
    )
    assert code == 0, err
    return work / "suite.db"


def spec_dict(tiny: Path) -> dict[str, Any]:
    return yaml.safe_load((tiny / "tiny_spec.yaml").read_text())


def write_spec(tiny: Path, data: dict[str, Any] | str) -> Path:
    path = tiny / "bad_spec.yaml"
    path.write_text(data if isinstance(data, str) else yaml.safe_dump(data), encoding="utf-8")
    return path


def _without(data: dict, key: str) -> dict:
    return {k: v for k, v in data.items() if k != key}


# name -> (how to break the tiny inputs, the file name and field that must be named)
SpecBreaker = Callable[[Path], list[str]]


def _spec_case(mutate: Callable[[dict], dict | str], field: str) -> tuple[SpecBreaker, str, str]:
    def make(tiny: Path) -> list[str]:
        return [str(write_spec(tiny, mutate(spec_dict(tiny))))]

    return make, "bad_spec.yaml", field


def _examples_case(content: bytes | None, field: str) -> tuple[SpecBreaker, str, str]:
    def make(tiny: Path) -> list[str]:
        path = tiny / "bad_examples.jsonl"
        if content is not None:
            path.write_bytes(content)
        return [str(tiny / "tiny_spec.yaml"), "--examples", str(path)]

    return make, "bad_examples.jsonl", field


def _target_case(target: dict, field: str) -> tuple[SpecBreaker, str, str]:
    return _spec_case(lambda d: d | {"targets": d["targets"] + [target]}, field)


CASES: dict[str, tuple[SpecBreaker, str, str]] = {
    "malformed YAML": _spec_case(lambda d: "name: [unclosed\ncriterion: x\n", "line"),
    "YAML list, not a mapping": _spec_case(lambda d: "- a\n- b\n", "mapping"),
    "recursive YAML anchor": _spec_case(lambda d: "name: &a [*a]\n", ": name: "),
    "duplicate key": _spec_case(
        lambda d: "name: a\ncriterion: one\ncriterion: two\n", "duplicate key 'criterion'"
    ),
    "unknown top-level field": _spec_case(lambda d: d | {"colour": "red"}, "colour"),
    "unknown nested field": _spec_case(
        lambda d: d | {"output": d["output"] | {"scale": 3}}, "output.scale"
    ),
    "missing criterion": _spec_case(lambda d: _without(d, "criterion"), "criterion"),
    "missing fields": _spec_case(lambda d: _without(d, "fields"), "fields"),
    "scored_field not declared": _spec_case(lambda d: d | {"scored_field": "nope"}, "nope"),
    "min >= max": _spec_case(
        lambda d: d | {"output": d["output"] | {"min": 5, "max": 1}}, "output"
    ),
    "min == max": _spec_case(
        lambda d: d | {"output": d["output"] | {"min": 3, "max": 3}}, "output"
    ),
    "non-numeric max": _spec_case(
        lambda d: d | {"output": d["output"] | {"max": "high"}}, "output.max"
    ),
    "unknown target kind": _target_case({"name": "x", "kind": "telepathy"}, "targets.x.kind"),
    "unknown built-in metric": _target_case(
        {"name": "m", "kind": "builtin", "metric": "vibes"}, "targets.m.metric"
    ),
    "unknown judge model": _target_case(
        {"name": "j", "kind": "llm_judge", "model": "nonsense-model"}, "targets.j.model"
    ),
    "unknown local judge model": _target_case(
        {"name": "j", "kind": "llm_judge", "model": "local/nope"}, "targets.j.model"
    ),
    "examples file missing": _examples_case(None, "not found"),
    "examples file empty": _examples_case(b"", "empty"),
    "examples file blank lines": _examples_case(b"\n  \n", "empty"),
    "examples not JSON": _examples_case(b'{"source": "a", ', "line 1"),
    "examples not UTF-8": _examples_case(b"\xff\xfe\x00bad", "UTF-8"),
    "example lacks a declared field": _examples_case(b'{"source": "a"}\n', "line 1.summary"),
    "example field empty": _examples_case(b'{"source": "a", "summary": " "}\n', "summary"),
    "example is not an object": _examples_case(b'["a", "b"]\n', "record 1"),
    "JSONL broken at line 4": _examples_case(
        b'{"source": "a", "summary": "b"}\n' * 3 + b'{"source": "a", "summ\n', "line 4"
    ),
    "example line of 100,000 nested [": _examples_case(b"[" * 100_000 + b"\n", "nested"),
    "unused field with a 5,000-digit integer": _examples_case(
        b'{"source": "a", "summary": "b", "n": ' + b"9" * 5000 + b"}\n", "line 1"
    ),
    "lone surrogate in an example": _examples_case(
        b'{"source": "a", "summary": "b \\ud800"}\n', "line 1.summary"
    ),
    "examples file is an empty list": _examples_case(b"[]\n", "no records"),
    "example field not a string": _examples_case(b'{"source": "a", "summary": 3}\n', "summary"),
}


def test_a_date_like_name_is_a_string_not_a_date_or_a_traceback(tiny: Path) -> None:
    data = spec_dict(tiny) | {"name": "2001-13-01"}
    spec, _ = load_spec(
        write_spec(tiny, yaml.safe_dump(data).replace("'2001-13-01'", "2001-13-01"))
    )
    assert spec.name == "2001-13-01"


def assert_refused(code: int, out: str, err: str, *needles: str) -> None:
    lines = err.strip().splitlines()
    assert code == 2, (code, out, err)
    assert len(lines) == 1, err
    assert lines[0].startswith("sane: error:"), err
    assert "Traceback" not in out + err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


@pytest.mark.parametrize("name", list(CASES))
def test_bad_spec_or_examples_is_refused_and_the_suite_unchanged(
    tiny: Path, built_suite: Path, name: str
) -> None:
    breaker, file_name, field = CASES[name]
    before = digest(built_suite)
    args = breaker(tiny)
    code, out, err = cli("generate", *args, "--suite", built_suite, *scripted_args(tiny))
    assert_refused(code, out, err, file_name, field)
    assert digest(built_suite) == before


def test_unknown_agent_model_is_refused_before_the_suite_exists(tiny: Path) -> None:
    for option in ("--model", "--oracle-model"):
        models = ["--model", "scripted", option, "no-such-provider"]
        if option == "--model":
            models = ["--model", "no-such-provider"]
        code, out, err = cli(
            "generate", tiny / "tiny_spec.yaml", "--suite", tiny / "new.db", *models, "--quiet"
        )
        assert_refused(code, out, err, option, "no-such-provider")
        assert not (tiny / "new.db").exists()


def _foreign_sqlite(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("create table notes (body text)")
    conn.execute("insert into notes values ('keep me')")
    conn.commit()
    conn.close()


def _newer_schema(built: Path) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        path.write_bytes(built.read_bytes())
        conn = sqlite3.connect(path)
        conn.execute("update meta set value = '99' where key = 'schema_version'")
        conn.commit()
        conn.close()

    return make


SUITE_FILES: dict[str, tuple[Callable[[Path], None] | None, str]] = {
    "text file": (lambda p: p.write_text("not a database\n"), "not a sane suite"),
    "foreign SQLite database": (_foreign_sqlite, "not a sane suite"),
    "newer schema version": (None, "schema_version"),
}


@pytest.mark.parametrize("kind", list(SUITE_FILES))
@pytest.mark.parametrize("command", ["generate", "execute", "report"])
def test_a_file_that_is_not_a_usable_suite_is_refused_unchanged(
    tiny: Path, built_suite: Path, kind: str, command: str
) -> None:
    make, needle = SUITE_FILES[kind]
    path = tiny / "other.db"
    (make or _newer_schema(built_suite))(path)
    before = digest(path)
    args = {
        "generate": ["generate", tiny / "tiny_spec.yaml", "--suite", path, *scripted_args(tiny)],
        "execute": ["execute", path, "--script", tiny / "tiny_script.yaml", "--quiet"],
        "report": ["report", path],
    }[command]
    code, out, err = cli(*args)
    assert_refused(code, out, err, "other.db", needle)
    assert digest(path) == before
    wal = Path(f"{path}-wal")  # a read-only look at a WAL-mode file may leave an empty one
    assert not wal.exists() or wal.stat().st_size == 0


def test_existing_suite_with_other_settings_or_unknown_target_is_unchanged(
    tiny: Path, built_suite: Path
) -> None:
    before = digest(built_suite)
    code, out, err = cli(
        "generate",
        tiny / "tiny_spec.yaml",
        "--suite",
        built_suite,
        *scripted_args(tiny),
        "--votes",
        "5",
    )
    assert_refused(code, out, err, "suite.db", "different")
    code, out, err = cli(
        "execute",
        built_suite,
        "--target",
        "nobody",
        "--quiet",
        "--script",
        tiny / "tiny_script.yaml",
    )
    assert_refused(code, out, err, "--target", "nobody")
    code, out, err = cli(
        "generate", tiny / "tiny_spec.yaml", "--suite", tiny / "no" / "s.db", *scripted_args(tiny)
    )
    assert_refused(code, out, err, "s.db", "directory")
    code, out, err = cli("execute", tiny, "--quiet")  # a directory, not a suite
    assert_refused(code, out, err, "not a file")
    assert digest(built_suite) == before


# ------------------------------------------------------------------ property tests

VALID = {
    "name": "tiny",
    "criterion": "faithful to the source",
    "fields": {"source": "the document", "summary": "the text"},
    "scored_field": "summary",
    "output": {"type": "ordinal", "min": 1, "max": 5, "higher_is_better": True},
    "examples": "tiny_examples.jsonl",
    "targets": [{"name": "careful", "kind": "python", "ref": "fixture_targets:careful"}],
}
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True),
    st.text(max_size=8),
    st.sampled_from(["", "1e400", "-inf", ".nan", "ordinal", "python"]),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(string.ascii_letters, max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
PATHS = [(), ("output",), ("fields",), ("targets", 0)]


@st.composite
def mutated_specs(draw: st.DrawFn) -> dict[str, Any]:
    spec = json.loads(json.dumps(VALID))
    for _ in range(draw(st.integers(1, 4))):
        node: Any = spec
        for step in draw(st.sampled_from(PATHS)):
            if (
                isinstance(node, dict)
                and isinstance(step, str)
                and isinstance(node.get(step), dict | list)
            ):
                node = node[step]
            elif isinstance(node, list) and node and isinstance(step, int):
                node = node[0]
        if not isinstance(node, dict):
            continue
        action = draw(st.sampled_from(["delete", "replace", "add"]))
        keys = sorted(node)
        if action == "add" or not keys:
            node[draw(st.text(string.ascii_letters, min_size=1, max_size=8))] = draw(values)
        elif action == "delete":
            del node[draw(st.sampled_from(keys))]
        else:
            node[draw(st.sampled_from(keys))] = draw(values)
    return spec


def _load_or_input_error(path: Path) -> None:
    try:
        load_spec(path)
    except InputError as exc:
        message = str(exc)
        assert "\n" not in message and str(path) in message


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(spec=mutated_specs())
def test_mutated_specs_load_or_raise_input_error(tiny: Path, spec: dict[str, Any]) -> None:
    path = tiny / "mutated.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    _load_or_input_error(path)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_corrupted_spec_text_loads_or_raises_input_error(tiny: Path, data: st.DataObject) -> None:
    text = yaml.safe_dump(VALID)
    for _ in range(data.draw(st.integers(1, 5))):
        at = data.draw(st.integers(0, len(text)))
        if data.draw(st.booleans()) and text:
            text = text[:at] + text[at + 1 :]
        else:
            text = (
                text[:at] + data.draw(st.sampled_from(list(":-[]{}&*!|>'\"#\n\t %@`"))) + text[at:]
            )
    path = tiny / "corrupted.yaml"
    path.write_text(text, encoding="utf-8")
    _load_or_input_error(path)


def test_the_refusal_is_exactly_one_stderr_line_with_the_progress_display_on(tiny: Path) -> None:
    """Through the installed command, without --quiet: no blank line from an unused display."""
    import subprocess
    import sys

    spec = write_spec(tiny, "name: a\ncriterion: one\ncriterion: two\n")
    run = subprocess.run(
        [str(Path(sys.executable).parent / "sane"), "generate", str(spec), "--model", "scripted",
         "--suite", str(tiny / "s.db")],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert run.returncode == 2
    assert run.stderr.splitlines() == [
        f"sane: error: {spec}: line 3: not valid YAML (duplicate key 'criterion')"
    ]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(spec=mutated_specs())
def test_mutated_specs_through_the_cli_run_or_refuse_in_one_line(
    tiny: Path, spec: dict[str, Any]
) -> None:
    """The same mutations through `sane generate --dry-run`: exit 0 (a valid spec) or exit 2
    with exactly one `sane: error:` line; never a traceback or another code."""
    path = tiny / "mutated.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    code, out, err = cli("generate", path, "--suite", tiny / "never.db", "--dry-run",
                         *scripted_args(tiny))  # fmt: skip
    assert code in (0, 2), (code, err)
    assert "Traceback" not in out + err
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("sane: error:"), err
    assert not (tiny / "never.db").exists()
