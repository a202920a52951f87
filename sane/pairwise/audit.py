"""Run the comparison kinds on one comparative target: ask it about every pair the kinds lay
out on each example, once per distinct pair, and read its preferences into their checks.

It needs no oracle and knows nothing of the pipeline: `score(record, repeat)` is the target's
preference for the first candidate in [-1, 1], or raises `CallFailed` (stored by the caller
as an error). An example with a failed call is left out of the kinds that needed that call,
never scored as a tie; a target whose every call fails gets an error, never a verdict.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

from sane.comparison_record import ComparisonAudit, ComparisonCheck
from sane.pairwise._kind import COMPARISON_KINDS, AuditSettings, Preferences


class CallFailed(Exception):
    """One call of the target failed (its error is stored where it happened)."""


Score = Callable[[dict[str, str], int], Awaitable[float]]


def kinds_for(names: Sequence[str] | None = None) -> list[str]:
    """The kinds to run: those named, in registry order (all by default)."""
    known = list(COMPARISON_KINDS)
    if names is None:
        return known
    unknown = [name for name in names if name not in COMPARISON_KINDS]
    if unknown:
        raise ValueError(COMPARISON_KINDS.unknown(unknown[0]))
    return [name for name in known if name in names]


async def audit_target(
    score: Score,
    examples: Sequence[dict[str, str]],
    sides: tuple[str, str],
    *,
    deterministic: bool,
    settings: AuditSettings | None = None,
    kinds: Sequence[str] | None = None,
    target: str = "",
    definition: str | None = None,
) -> ComparisonAudit:
    """The audit of one target over `examples` (records holding both candidates)."""
    settings = settings or AuditSettings()
    names = kinds_for(kinds)
    first, second = sides
    # every distinct call across kinds and examples, asked once
    calls: dict[tuple[int, str, str, int], asyncio.Task[float] | None] = {}
    plans: dict[str, list[dict[str, tuple[int, str, str, int]]]] = {name: [] for name in names}
    for index, example in enumerate(examples):
        a, b = example[first], example[second]
        for name in names:
            layout = COMPARISON_KINDS[name].layouts(a, b)
            if name == "repeatability" and deterministic:
                layout = {}
            keyed = {role: (index, pa, pb, rep) for role, (pa, pb, rep) in layout.items()}
            plans[name].append(keyed)
            calls.update(dict.fromkeys(keyed.values()))
    failures: list[str] = []

    async def ask(key: tuple[int, str, str, int]) -> float | None:
        index, pa, pb, repeat = key
        record = {**examples[index], first: pa, second: pb}
        try:
            return await score(record, repeat)
        except CallFailed as exc:
            failures.append(str(exc))
            return None

    keys = list(calls)
    answers = dict(zip(keys, await asyncio.gather(*(ask(k) for k in keys)), strict=True))
    audit = ComparisonAudit(
        target=target, definition_sha256=definition, examples=len(examples), calls=len(keys),
        failed_calls=len(failures), first_failure=failures[0] if failures else None,
    )  # fmt: skip
    if keys and len(failures) == len(keys):
        audit.error = f"every one of its {len(keys)} calls failed; first: {failures[0]}"
        return audit
    checks: list[ComparisonCheck] = []
    for name in names:
        rows: list[Preferences] = []
        for keyed in plans[name]:
            values = {role: answers[key] for role, key in keyed.items()}
            if all(value is not None for value in values.values()):
                rows.append(values)  # type: ignore[arg-type]
        checks.append(COMPARISON_KINDS[name].measure(rows, settings, deterministic))
    audit.checks = checks
    return audit
