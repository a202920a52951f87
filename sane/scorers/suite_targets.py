"""A suite's targets: frozen from a spec when it is loaded, checked before any call.

Freezing copies what execution needs out of the spec's folder (the judge rubric's text) and
hashes the definition, so the suite runs wherever it is moved, and a changed definition is
seen as new: its results are measured again. A python target's code is the one thing a suite
cannot carry: it runs only when the person running the suite chose it (`CodeTrust`). Another
spec of the same scorer may add or replace targets of an existing suite (`sane execute SUITE
--spec FILE`), which is how judge versions are compared on one suite over time.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sane.errors import InputError
from sane.records import ScorerSpec, SuiteTarget, TargetConfig
from sane.scorers import BuildContext, build_target
from sane.scorers.llm_judge import read_rubric
from sane.scorers.python_fn import KIND as PYTHON_KIND
from sane.scorers.python_fn import (
    check_ref,
    library_code,
    module_file,
    module_sha256,
    search_folder,
)

# What makes two specs the same scorer: a target may change, these may not.
SCORER_FIELDS = ("name", "criterion", "fields", "scored_field", "output")


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# Keys that a spec could give as free-form extras before TargetConfig declared them: left out
# of the hashed document when unset, so a definition hashed before keeps its hash.
_DECLARED_LATER = ("reply", "deterministic", "config_group")


def definition_sha256(config: TargetConfig, rubric_sha: str | None, code_sha: str | None) -> str:
    data = config.model_dump(mode="json")
    for key in _DECLARED_LATER:
        if key not in config.model_fields_set:
            data.pop(key)
    document = {"config": data, "rubric": rubric_sha, "code": code_sha}
    return _sha256(json.dumps(document, sort_keys=True))


def frozen(config: TargetConfig, rubric: str | None, source: str) -> SuiteTarget:
    """One target's definition with its rubric text and the hashes that identify it."""
    rubric_sha = _sha256(rubric) if rubric is not None else None
    code_sha = module_sha256(config.ref) if config.kind == PYTHON_KIND and config.ref else None
    return SuiteTarget(
        config=config,
        rubric=rubric,
        rubric_sha256=rubric_sha,
        code_sha256=code_sha,
        definition_sha256=definition_sha256(config, rubric_sha, code_sha),
        source=source,
        added=datetime.now(UTC).isoformat(timespec="seconds"),
    )


def freeze_targets(
    spec: ScorerSpec, spec_dir: Path, source: str, example: Mapping[str, str] | None = None
) -> list[SuiteTarget]:
    """Check every target of a spec just loaded (refs import, rubrics read, compile and
    render on `example`, metrics exist) and freeze it; bad input is refused here, before
    any call."""
    search_folder(spec_dir)  # before the hashes too: a ref may name a module beside the spec
    check_targets(spec, BuildContext(spec=spec, base_dir=spec_dir, llm=_NoCalls(), example=example))
    return [frozen(t, read_rubric(t, spec_dir), source) for t in spec.targets]


NOT_RUN = "not run: code target from the suite"


@dataclass(frozen=True)
class CodeTrust:
    """Whose code a run may execute. A suite is a file people mail around, and a python
    target is a `module:function` the suite's author named: running it is running their code.
    So a stored python target runs only when the person running the suite chose it: a spec
    given on this run declares it (`declared`, frozen afresh from that spec), or they passed
    `--trust-suite-code` (`suite_code`), and then only if its module file is the one the suite
    recorded. Every other kind (judge rubrics render in a sandbox, metrics are built in) runs
    no code of the suite's."""

    declared: frozenset[str] = frozenset()
    suite_code: bool = False


def runnable(
    targets: Iterable[SuiteTarget], trust: CodeTrust, suite: str
) -> tuple[list[SuiteTarget], list[str]]:
    """The targets this run may build, and the names of the code targets it must not run
    (never imported). A trusted one whose module changed is refused by name."""
    run: list[SuiteTarget] = []
    not_run: list[str] = []
    for target in targets:
        config = target.config
        if config.kind != PYTHON_KIND or config.name in trust.declared:
            run.append(target)
        elif trust.suite_code:
            verify_code(target, suite)
            run.append(target)
        else:
            not_run.append(config.name)
    return run, not_run


def verify_code(target: SuiteTarget, suite: str) -> None:
    """Refuse a stored python target whose ref names the standard library, an installed
    package or sane, or whose module file is not the one the suite recorded; checked before
    anything is imported. Trust is in the user's own modules: a hash cannot tell a gadget
    from a scorer when the gadget is a package file that is the same on every machine."""
    field = f"targets.{target.config.name}.ref"
    check_ref(target.config.ref, field, suite)
    refuse_library_code(str(target.config.ref), field, suite)
    found = module_sha256(str(target.config.ref))
    module = str(target.config.ref).partition(":")[0]
    if found is None and target.code_sha256 is not None:  # a moved suite, its code left behind
        raise InputError(
            suite,
            f"targets.{target.config.name}",
            f"its module '{module}' is not importable here; put {module.split('.')[0]}.py "
            "(the file the suite recorded) on PYTHONPATH, or give its spec with --spec",
        )
    if target.code_sha256 is None or found != target.code_sha256:
        where = module_file(str(target.config.ref))
        recorded = (target.code_sha256 or "none")[:12]
        raise InputError(
            suite,
            f"targets.{target.config.name}",
            f"its module file ({where or 'not found'}, sha256 {(found or 'none')[:12]}) is not "
            f"the one this suite recorded (sha256 {recorded}); give its spec with --spec to "
            "declare it on this run",
        )


def refuse_library_code(ref: str, field: str, suite: str) -> None:
    """Refuse a stored ref whose module file is not the user's own (python_fn.library_code)."""
    where = module_file(ref)
    owner = library_code(where) if where is not None else None
    if owner is not None:
        raise InputError(
            suite,
            field,
            f"'{ref}' belongs to {owner} ({where}), not to a module of your own; "
            "--trust-suite-code runs only your own modules: give a spec with --spec to run it",
        )


def check_targets(spec: ScorerSpec, context: BuildContext) -> None:
    for config in spec.targets:
        build_target(config, context)


def same_scorer(suite_spec: ScorerSpec, other: ScorerSpec, path: str) -> None:
    """Targets from another spec join a suite only when it describes the same scorer."""
    for field in SCORER_FIELDS:
        if getattr(suite_spec, field) != getattr(other, field):
            raise InputError(
                path,
                field,
                "differs from the suite's scorer; targets can only be added from a spec of "
                "the same scorer (same name, criterion, fields, scored_field and output)",
            )


class _NoCalls:
    """The LLM client of targets built only to be checked: none of them may call a model."""

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"a target built only to be checked used its LLM client ({name})")
