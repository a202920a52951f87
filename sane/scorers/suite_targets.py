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
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sane.errors import InputError
from sane.records import ScorerSpec, SuiteTarget, TargetConfig
from sane.scorers import BuildContext, build_target
from sane.scorers.python_fn import search_folder
from sane.target_kind import definition_sha256, kind_of

# What makes two specs the same scorer: a target may change, these may not (a comparative
# spec's candidates among them: another second candidate is another comparison).
SCORER_FIELDS = ("name", "criterion", "fields", "scored_field", "output", "compared_fields")


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def frozen(config: TargetConfig, spec_dir: Path, source: str) -> SuiteTarget:
    """One target's definition with what its kind freezes (a rubric's text, a module's hash)
    and the hash that identifies them together."""
    held = kind_of(config).freeze(config, spec_dir)
    rubric_sha = _sha256(held.rubric) if held.rubric is not None else None
    return SuiteTarget(
        config=config,
        rubric=held.rubric,
        rubric_sha256=rubric_sha,
        code_sha256=held.code_sha256,
        definition_sha256=definition_sha256(config, rubric_sha, held.code_sha256),
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
    return [frozen(t, spec_dir, source) for t in spec.targets]


NOT_RUN = "not run: code target from the suite"


@dataclass(frozen=True)
class CodeTrust:
    """Whose code a run may execute. A suite is a file people mail around, and a target of a
    kind that runs code (a python target's `module:function`) runs code the suite's author
    named. So such a stored target runs only when the person running the suite chose it: a
    spec given on this run declares it (`declared`, frozen afresh from that spec), or they
    passed `--trust-suite-code` (`suite_code`), and then only if its kind's `verify_code`
    accepts it (a python module file must be the one the suite recorded). Every other kind
    (judge rubrics render in a sandbox, metrics are built in) runs no code of the suite's."""

    declared: frozenset[str] = frozenset()
    suite_code: bool = False


def runnable(
    targets: Iterable[SuiteTarget], trust: CodeTrust, suite: str
) -> tuple[list[SuiteTarget], list[str]]:
    """The targets this run may build, and the names of the code targets it must not run
    (never imported). A trusted one its kind refuses (a changed module) is refused by name."""
    run: list[SuiteTarget] = []
    not_run: list[str] = []
    for target in targets:
        verify = kind_of(target.config).verifier(target.config)
        if verify is None or target.config.name in trust.declared:
            run.append(target)
        elif trust.suite_code:
            verify(target, suite)
            run.append(target)
        else:
            not_run.append(target.config.name)
    return run, not_run


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
                "the same scorer (same name, criterion, fields, scored_field, output and "
                "compared_fields)",
            )


class _NoCalls:
    """The LLM client of targets built only to be checked: none of them may call a model."""

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"a target built only to be checked used its LLM client ({name})")
