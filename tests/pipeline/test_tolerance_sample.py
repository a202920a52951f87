"""Which records a target's tolerance is measured on: a few for a noisy target (scored three
times each: its calls cost), every distinct example for a deterministic one (its tolerance is
a share of its spread of scores, which a few examples estimate poorly; code costs no call)."""

from __future__ import annotations

from types import SimpleNamespace

from sane.pipeline.execution import SPREAD_SAMPLE, TOLERANCE_SAMPLE, ToleranceSample


def test_a_deterministic_target_is_measured_on_every_distinct_example() -> None:
    pool = [{"text": f"t{i % 7}"} for i in range(40)]  # 7 distinct examples, repeated
    sample = ToleranceSample.from_examples(pool[:TOLERANCE_SAMPLE], pool)
    assert sample.of(SimpleNamespace(deterministic=False)) == pool[:TOLERANCE_SAMPLE]
    every = sample.of(SimpleNamespace(deterministic=True))
    assert every == [{"text": f"t{i}"} for i in range(7)]  # each once, in the pool's order


def test_the_spread_sample_is_capped_and_never_empty() -> None:
    pool = [{"text": str(i)} for i in range(SPREAD_SAMPLE + 10)]
    assert len(ToleranceSample.from_examples(pool[:5], pool).deterministic) == SPREAD_SAMPLE
    few = [{"text": "a"}]
    assert ToleranceSample.from_examples(few, []).deterministic == few
