"""The comparison audit as a stage of the execute graph (sane.pairwise does the audit): each
comparative target asked about swapped, identical, padded and praised pairs of the suite's
examples, with no oracle, and its audit stored with the suite.

A pointwise spec has no such stage: nothing is asked and nothing stored. The stage resumes
as the store lets every stage resume: a target whose definition has not changed since its
stored audit (on as many examples) is not asked again, and an audit cut short is redone,
its judge calls answered by the LLM cache.
"""

from __future__ import annotations

from sane.comparison_record import ComparisonAudit
from sane.errors import LLMError, ScorerError
from sane.pairwise import CallFailed, audit_target
from sane.pipeline._runtime import RunContext, no_progress, run_all
from sane.pipeline.execution import timeout_of
from sane.records import Example, Stage
from sane.scorers.base import Target
from sane.scorers.execute import normalise, score_once
from sane.target_kind import is_control


def audited_examples(ctx: RunContext) -> list[Example]:
    """The suite's first `--comparison-examples` examples: the audit is bounded (about 17
    target calls an example), and the same examples every run, so audits compare."""
    return ctx.examples[: ctx.execution.comparison_examples]


def _current(previous: ComparisonAudit | None, definition: str | None, examples: int) -> bool:
    """Whether a stored audit still holds: made without error by this definition, on as
    many examples."""
    return (
        previous is not None
        and previous.error is None
        and previous.definition_sha256 == definition
        and previous.examples == examples
    )


async def audit_comparisons(ctx: RunContext) -> dict[str, ComparisonAudit]:
    """Each candidate target's comparison audit (the planted null scorers are controls of
    the ranking, not comparative judges); {} for a pointwise spec or with no example to ask.
    Every failed target call is stored as an error and leaves the kinds that needed it
    unmeasured on that example, never a tie; a target whose every call fails gets an
    error, never a verdict."""
    spec = ctx.spec
    examples = audited_examples(ctx)
    if not spec.comparative or not examples:
        return {}
    assert spec.compared_fields is not None
    first, second = spec.compared_fields
    stored = {audit.target: audit for audit in ctx.store.comparisons()}
    planted = {t.config.name for t in ctx.store.targets() if is_control(t.config)}
    audits: dict[str, ComparisonAudit] = {}

    async def one(item: tuple[str, Target]) -> None:
        name, target = item
        definition = ctx.definitions.get(name)
        if _current(stored.get(name), definition, len(examples)):
            audits[name] = stored[name]
            return
        timeout_s, label = timeout_of(ctx, name), f"{Stage.comparison.label} {name}"

        async def preference(record: dict[str, str], repeat: int) -> float:
            """The target's preference for the first candidate on [-1, 1]; a failed call is
            stored as an error and raised as CallFailed (the audit counts it)."""
            try:
                raw = await score_once(target, record, repeat, timeout_s)
            except (ScorerError, LLMError) as exc:
                ctx.store.put_error(Stage.comparison, name, str(exc), target=name)
                raise CallFailed(str(exc)) from exc
            return 2.0 * normalise(raw, target.contract, spec.output) - 1.0

        ctx.progress(label, 0, 1)
        audit = await audit_target(
            preference, examples, (first, second), deterministic=bool(target.deterministic),
            target=name, definition=definition,
        )  # fmt: skip
        ctx.store.put_comparison(audit)
        ctx.progress(label, 1, 1)
        audits[name] = audit

    candidates = [(name, target) for name, target in ctx.targets.items() if name not in planted]
    await run_all(Stage.comparison.label, candidates, one, no_progress)
    return audits
