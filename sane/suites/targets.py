"""A suite's targets: frozen from a spec when it is loaded, checked before any call.

Freezing copies what execution needs out of the spec's folder (the judge rubric's text) and
hashes the definition, so the suite runs wherever it is moved, and a changed definition is
seen as new: its results are measured again. Another spec of the same scorer may add or
replace targets of an existing suite (`sane execute SUITE --spec FILE`), which is how judge
versions are compared on one suite over time.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sane.errors import InputError
from sane.records import ScorerSpec, SuiteTarget, TargetConfig
from sane.scorers import BuildContext, build_target
from sane.scorers.llm_judge import read_rubric
from sane.scorers.python_fn import module_sha256

# What makes two specs the same scorer: a target may change, these may not.
SCORER_FIELDS = ("name", "criterion", "fields", "scored_field", "output")


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def definition_sha256(config: TargetConfig, rubric_sha: str | None, code_sha: str | None) -> str:
    document = {"config": config.model_dump(mode="json"), "rubric": rubric_sha, "code": code_sha}
    return _sha256(json.dumps(document, sort_keys=True))


def frozen(config: TargetConfig, rubric: str | None, source: str) -> SuiteTarget:
    """One target's definition with its rubric text and the hashes that identify it."""
    rubric_sha = _sha256(rubric) if rubric is not None else None
    code_sha = module_sha256(config.ref) if config.kind == "python" and config.ref else None
    return SuiteTarget(
        config=config,
        rubric=rubric,
        rubric_sha256=rubric_sha,
        code_sha256=code_sha,
        definition_sha256=definition_sha256(config, rubric_sha, code_sha),
        source=source,
        added=datetime.now(UTC).isoformat(timespec="seconds"),
    )


def freeze_targets(spec: ScorerSpec, spec_dir: Path, source: str) -> list[SuiteTarget]:
    """Check every target of a spec just loaded (refs import, rubrics read and compile,
    metrics exist) and freeze it; bad input is refused here, before any call."""
    check_targets(spec, BuildContext(spec=spec, base_dir=spec_dir, llm=_NoCalls()))
    return [frozen(t, read_rubric(t, spec_dir), source) for t in spec.targets]


def refreshed(target: SuiteTarget) -> SuiteTarget:
    """The target with its python module hashed again: an edited scoring function is a new
    definition, measured again (the stored one keeps its `added` time otherwise)."""
    if target.config.kind != "python" or not target.config.ref:
        return target
    code_sha = module_sha256(target.config.ref)
    if code_sha == target.code_sha256:
        return target
    return frozen(target.config, target.rubric, target.source)


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
