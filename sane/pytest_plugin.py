"""A pytest plugin (entry point `pytest11`): a suite's CI gate as test items.

A file named `sane_check*.yaml` (or `.yml`) anywhere pytest collects becomes one test item
per limit and target, the same checks `sane check` makes:

    suite: judge-suite.db          # relative to this file
    targets: [judge-v2]            # optional; default every target the limits apply to
    max_faults: 0
    min_pass_rate: 0.8             # every target
    min_pass_rate_per_target: {judge-v2: 0.9}
    max_faults_per_requirement: {monotonicity: 0}
    max_errors: 5
    max_control_false_accept: 0.1  # the suite's own oracle panel on its planted controls

A limit outside its bound fails its item; a target without any result, or a suite without
controls under `max_control_false_accept`, is an item that fails as "not measured". A bad
gate file is a collection error naming the file and the field. The build then fails the way
any failing test fails it, with pytest's own reports (JUnit included, `--junitxml`).

Only pytest is imported here: the plugin loads in every pytest run of an environment where
sane is installed, so sane itself loads only when a gate file is collected.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

GATE_PREFIX = "sane_check"


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.name.startswith(GATE_PREFIX) and file_path.suffix in {".yaml", ".yml"}:
        return GateFile.from_parent(parent, path=file_path)
    return None


class GateFile(pytest.File):
    """One gate file: its checks, computed from the suite's report when collected."""

    def collect(self) -> Iterator[pytest.Item]:
        from sane.errors import InputError

        try:
            result = _evaluate(self.path)
        except InputError as exc:
            raise GateFileError(str(exc)) from None
        for check in result.checks:
            yield GateItem.from_parent(
                self, name=f"{check.target}::{check.measure}", check=check, problem=None
            )
        for problem in result.problems:
            yield GateItem.from_parent(self, name="measured", check=None, problem=problem)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, GateFileError):
            return f"sane gate: {excinfo.value}"
        return super().repr_failure(excinfo, style=style)


class GateFileError(Exception):
    """A gate file or its suite that cannot be read (shown as a one-line collection error)."""


class GateFailure(Exception):
    """A limit the suite's results are outside of."""


class GateItem(pytest.Item):
    def __init__(self, *, check: Any, problem: str | None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.check = check
        self.problem = problem

    def runtest(self) -> None:
        if self.problem is not None:
            raise GateFailure(f"not measured: {self.problem}")
        check = self.check
        if check.value is None:
            raise GateFailure(f"{check.target}: {check.measure} has no result")
        if not check.passed:
            relation = "at most" if check.bound == "max" else "at least"
            raise GateFailure(
                f"{check.target}: {check.measure} is {check.value:.4g}; "
                f"must be {relation} {check.limit:.4g}"
            )

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, GateFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"sane gate {self.name}"


def _evaluate(path: Path) -> Any:
    """Read a gate file, build the suite's report and evaluate the limits."""
    import yaml
    from pydantic import ValidationError

    from sane import _yaml, api
    from sane.errors import InputError
    from sane.reporting import GateFileSpec, evaluate

    try:
        data = _yaml.load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise InputError(str(path), None, f"cannot read the gate file ({exc})") from None
    try:
        spec = GateFileSpec.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "(top level)"
        raise InputError(str(path), field, first["msg"]) from None
    if not spec.limits().any():
        raise InputError(str(path), None, "give at least one limit")
    return evaluate(api.report(path.parent / spec.suite), spec.limits(), spec.targets)
