"""A stored judge rubric cannot hang `execute`: its render is bounded in work and timed.

A rubric is template code, and a received suite's rubric is its author's: nested loops
(`range(100000)` twice), a macro that calls itself twice, a string doubled in a loop or a
`center(10**10)` rendered on the event loop for days, past `--timeout`. Each is now an error
of the call ("rubric rendering exceeded ..."), never a score, and no model is asked. Each
test below fails on the code before this rule (it hung, so each render runs in a thread the
test can give up on).
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

from sane.errors import ScorerError
from sane.records import OutputContract, ScorerSpec
from sane.scorers import BuildContext, build_target
from sane.scorers.execute import score_variants
from sane.target_kind import target_config

SPEC = ScorerSpec(
    name="rubric-limits",
    criterion="How faithful the summary is.",
    fields={"source": "the document", "summary": "the text being scored"},
    scored_field="summary",
    output=OutputContract(type="ordinal", min=1, max=5),
)
RECORDS = {"original": {"source": "A cat sat. " * 200, "summary": "A cat sat."}}
RUNAWAY = {
    "nested ranges": "{% for a in range(100000) %}{% for b in range(100000) %}x"
    "{% endfor %}{% endfor %}",
    "nested ranges, no output": "{% for a in range(100000) %}{% for b in range(100000) %}"
    "{% endfor %}{% endfor %}",
    "loops over record text": "{% for a in fields.source %}{% for b in fields.source %}"
    "{% for c in fields.source %}{% endfor %}{% endfor %}{% endfor %}",
    "exponential macro": "{% macro f(n) %}{% if n %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}"
    "{% endmacro %}{{ f(60) }}",
    "endless macro": "{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}",
    "doubled string": "{% set ns = namespace(s='x') %}{% for i in range(64) %}"
    "{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s | length }}",
    "doubled by a filter": "{% set ns = namespace(s='x') %}{% for i in range(64) %}"
    "{% set ns.s = ns.s | replace('x', 'xx') %}{% endfor %}{{ ns.s | length }}",
    "repeated string": "{{ 'x' * 10**10 }}",
    "huge width": "{{ fields.summary | center(10**10) }}",
    "huge power": "{% set ns = namespace(n=3) %}{% for i in range(64) %}"
    "{% set ns.n = ns.n * ns.n %}{% endfor %}{{ ns.n }}",
}


class _Model:
    """A judge's model that answers at once and counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    async def text(self, model: str, messages: list[dict[str, str]], **_: Any) -> str:
        self.calls += 1
        return "Score: 4"

    def serial_key(self, model: str) -> str | None:
        return None


def _judge(rubric: str) -> tuple[Any, _Model]:
    """A judge built as `execute` builds a suite's: from the rubric text the suite holds."""
    model = _Model()
    config = target_config(name="judge", kind="llm_judge", model="stub", prompt="rubric.j2")
    context = BuildContext(spec=SPEC, llm=model, rubrics={"judge": rubric})  # type: ignore[arg-type]
    return build_target(config, context), model


def _score_in_a_thread(
    judge: Any, timeout_s: float, give_up_s: float, records: dict[str, dict[str, str]] = RECORDS
) -> tuple[Any, float]:
    """`score_variants` as the executor calls it, on a loop in a daemon thread, so a render
    that never ends fails the test instead of hanging it: (its result or error, seconds)."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(asyncio.run(score_variants(judge, records, 1, timeout_s)))
        except BaseException as exc:  # noqa: BLE001 - the test reads it
            outcome.append(exc)

    started = time.monotonic()
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(give_up_s)
    assert outcome, f"the call did not end within {give_up_s} s (timeout {timeout_s} s)"
    return outcome[0], time.monotonic() - started


@pytest.mark.parametrize("rubric", list(RUNAWAY.values()), ids=list(RUNAWAY))
def test_a_runaway_rubric_is_an_error_never_a_hang(rubric: str) -> None:
    judge, model = _judge(rubric)
    result, _ = _score_in_a_thread(judge, timeout_s=600, give_up_s=30)
    assert isinstance(result, ScorerError), result
    assert "rubric rendering exceeded" in str(result)
    assert model.calls == 0  # no prompt, no call


def test_a_slow_render_is_timed_like_the_call() -> None:
    """Within its limits a render still takes time (here some 120,000 steps on a long
    record, seconds), and that time is the call's: it runs off the event loop, so the
    per-call timeout fires while it goes on."""
    rubric = "{% for i in range(60000) %}{% set x = fields.source | upper %}{% endfor %}"
    judge, model = _judge(rubric)
    long_record = {"original": {"source": "A cat sat. " * 20000, "summary": "A cat sat."}}
    result, elapsed = _score_in_a_thread(judge, timeout_s=0.3, give_up_s=60, records=long_record)
    assert isinstance(result, ScorerError) and "timed out after 0.3s" in str(result), result
    assert elapsed < 1.5, elapsed
    assert model.calls == 0


def test_an_ordinary_rubric_renders_as_before() -> None:
    rubric = (
        "{% for name, text in fields.items() %}<{{ name }}>{{ text[:20] }}</{{ name }}>\n"
        "{% endfor %}{{ criterion ~ '!' }} {{ output.min }}-{{ output.max }} {{ 'ab' * 2 }}"
    )
    judge, model = _judge(rubric)
    result, _ = _score_in_a_thread(judge, timeout_s=30, give_up_s=30)
    assert result == {"original": [4.0]} and model.calls == 1
    prompt = judge.render(RECORDS["original"])
    assert prompt.endswith("How faithful the summary is.! 1-5 abab")
    assert "<summary>A cat sat.</summary>" in prompt
