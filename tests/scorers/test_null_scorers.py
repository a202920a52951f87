"""Null scorers: the constant, seeded-noise and length targets a ranking is checked against."""

from __future__ import annotations

import asyncio

from sane.records import OutputContract, ScorerSpec
from sane.scorers.base import BuildContext, build_target
from sane.scorers.null_scorers import null_targets

SPEC = ScorerSpec(
    name="s",
    criterion="c",
    fields={"source": "s", "summary": "t"},
    scored_field="summary",
    output=OutputContract(type="ordinal", min=1, max=5),
)


def _scores(text: str) -> dict[str, float]:
    context = BuildContext(spec=SPEC)
    return {
        config.scorer: asyncio.run(build_target(config, context).score({"summary": text}))
        for config in null_targets()
    }


def test_null_scorers_answer_in_the_specs_contract_without_reading_for_meaning():
    short, long = _scores("One claim."), _scores(" ".join(["word"] * 200))
    assert short["constant"] == long["constant"] == 3.0  # the ordinal contract's midpoint
    assert short["length"] < long["length"] == 5.0
    assert _scores("One claim.")["noise"] == short["noise"]  # fixed by the text: repeats agree
    assert all(1.0 <= v <= 5.0 for v in (*short.values(), *long.values()))


PAIRWISE = ScorerSpec(
    name="p",
    criterion="which answer is better",
    fields={"question": "q", "answer_a": "a", "answer_b": "b"},
    scored_field="answer_a",
    compared_fields=["answer_a", "answer_b"],
    output=OutputContract(type="pairwise"),
)


def test_on_a_comparative_spec_the_length_null_prefers_the_longer_candidate_and_the_constant_ties():
    context = BuildContext(spec=PAIRWISE)
    short, long = "One claim.", " ".join(["word"] * 60)

    def preference(scorer: str, a: str, b: str) -> float:
        (config,) = [c for c in null_targets() if c.scorer == scorer]
        return asyncio.run(build_target(config, context).score({"answer_a": a, "answer_b": b}))

    assert preference("constant", short, long) == preference("constant", long, short) == 0.0
    assert preference("length", long, short) > 0 > preference("length", short, long)
    assert preference("length", long, short) == -preference("length", short, long)
    assert preference("length", short, short) == 0.0
