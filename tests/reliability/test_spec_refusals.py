"""A spec is refused, in one line naming the field, when it holds what a suite must not store
or show: a secret, an unknown target key, a name with control characters. Nothing is created.
"""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree

import pytest
import yaml
from reliability_helpers import cli, scripted_args

from sane import api
from sane.reporting import Limits, evaluate, junit_xml


def _write_spec(work: Path, change) -> Path:
    spec = yaml.safe_load((work / "tiny_spec.yaml").read_text())
    change(spec)
    path = work / "spec.yaml"
    path.write_text(yaml.safe_dump(spec, allow_unicode=True))
    return path


def _generate(work: Path, spec: Path) -> tuple[int, str]:
    code, _, err = cli("generate", spec, "--suite", work / "suite.db", *scripted_args(work))
    return code, err


def _refused(work: Path, change, field: str, words: str) -> str:
    code, err = _generate(work, _write_spec(work, change))
    assert code == 2, err
    line = err.strip()
    assert len(line.splitlines()) == 1, err
    assert f": {field}: " in line and words in line, line
    assert not (work / "suite.db").exists()
    return line


@pytest.mark.parametrize("key", ["api_key", "apikey", "token", "access_token", "password"])
def test_a_secret_in_a_target_is_refused_with_where_it_belongs(tiny: Path, key: str) -> None:
    def change(spec):
        spec["targets"][0][key] = "sk-live-0123456789abcdef"

    line = _refused(tiny, change, f"targets.careful.{key}", "a secret does not belong in a spec")
    assert "environment variable" in line and "sk-live" not in line


def test_a_secret_at_the_top_of_a_spec_is_refused(tiny: Path) -> None:
    _refused(tiny, lambda s: s.update(openai_api_key="sk-x"), "openai_api_key", "secret")


def test_an_unknown_target_key_is_refused_by_name(tiny: Path) -> None:
    def change(spec):
        spec["targets"][1]["timeout"] = 0.3  # a typo for timeout_s

    _refused(tiny, change, "targets.lazy.timeout", "unknown field")


def test_declared_target_keys_still_load(tiny: Path) -> None:
    from sane.inputs import load_spec

    def change(spec):
        spec["targets"][0] |= {"deterministic": True, "config_group": "g", "timeout_s": 2}

    loaded, _ = load_spec(_write_spec(tiny, change))
    assert loaded.targets[0].deterministic and loaded.targets[0].config_group == "g"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda s: s["targets"][0].update(name="ctl\x01\x1b[31mred"), "targets.0.name"),
        (lambda s: s.update(name="tiny\x1b]0;pwned\x07"), "name"),
        (lambda s: s["targets"][0].update(config_group="g\x1b[2J"), "targets.careful.config_group"),
        (lambda s: s["targets"][0].update(name="abc\u202etxt.exe"), "targets.0.name"),
    ],
    ids=["target name", "spec name", "config group", "bidi override"],
)
def test_names_with_control_characters_are_refused(tiny: Path, change, field: str) -> None:
    line = _refused(tiny, change, field, "control character")
    assert "\x1b" not in line and "\x01" not in line and "\u202e" not in line


def test_a_field_name_with_control_characters_is_refused(tiny: Path) -> None:
    def change(spec):
        spec["fields"]["bad\x1b[0m"] = "a field"

    code, err = _generate(tiny, _write_spec(tiny, change))
    assert code == 2 and "control character" in err and "\x1b" not in err, err


def test_junit_xml_parses_whatever_the_names_hold(tiny: Path) -> None:
    """A suite's generated texts (recipe names, errors) are not checked at load: the JUnit
    writer itself must never write a character XML cannot hold."""
    suite = tiny / "suite.db"
    assert _generate(tiny, tiny / "tiny_spec.yaml")[0] == 0
    code, _, err = cli("execute", suite, "--spec", tiny / "tiny_spec.yaml", "--quiet",
                       "--script", tiny / "tiny_script.yaml", "--cache", tiny / "cache.db")  # fmt: skip
    assert code in (0, 4), err
    report = api.report(suite)
    report.suite.scorer = "tiny\x1b[31m\x00"
    result = evaluate(report, Limits(max_faults=0))
    for check in result.checks:
        check.target += "\x01\x1b"
    root = ElementTree.fromstring(junit_xml(report, result).encode("utf-8"))
    assert "\\x1b" in root.get("name", "")
    assert all("\\x01" in case.get("classname", "") for case in root.iter("testcase")
               if case.get("classname") != "sane")  # fmt: skip
