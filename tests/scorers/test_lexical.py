"""Built-in lexical metrics: identical beats unrelated, contract, batching, bad config."""

from __future__ import annotations

import pytest

from sane.errors import InputError
from sane.scorers import BUILTIN_METRICS, BatchTarget, build_target, score_variants
from sane.scorers.base import BuildContext
from sane.scorers.lexical import token_f1
from sane.target_kind import target_config

METRICS = ["rouge_l", "bleu", "chrf", "token_f1"]
SOURCE = "The committee approved the new budget for public schools on Tuesday."
SAME = {"source": SOURCE, "summary": SOURCE}
CLOSE = {"source": SOURCE, "summary": "The committee approved a budget for schools."}
UNRELATED = {"source": SOURCE, "summary": "Penguins huddle together to survive polar winters."}


def metric(context: BuildContext, name: str):
    return build_target(
        target_config(name=name, kind="builtin", metric=name, reference_field="source"), context
    )


def test_all_metrics_registered() -> None:
    assert set(METRICS) <= set(BUILTIN_METRICS)


@pytest.mark.parametrize("name", METRICS)
async def test_identical_beats_close_beats_unrelated(context: BuildContext, name: str) -> None:
    target = metric(context, name)
    same, close, unrelated = [await target.score(r) for r in (SAME, CLOSE, UNRELATED)]
    assert same == pytest.approx(1.0)
    assert same > close > unrelated
    assert 0.0 <= unrelated < 0.2
    assert target.deterministic is True
    assert (target.contract.min, target.contract.max, target.contract.higher_is_better) == (
        0.0,
        1.0,
        True,
    )
    assert target.fields == ("summary", "source")


@pytest.mark.parametrize("name", METRICS)
async def test_batch_matches_single_scores(context: BuildContext, name: str) -> None:
    target = metric(context, name)
    assert isinstance(target, BatchTarget)
    batch = await target.score_batch([SAME, CLOSE, UNRELATED])
    assert batch == [await target.score(r) for r in (SAME, CLOSE, UNRELATED)]
    scores = await score_variants(target, {"o": SAME, "p": UNRELATED}, 3, 5.0)
    assert scores["o"] == [batch[0]] * 3 and scores["p"] == [batch[2]] * 3


def test_token_f1_squad_normalisation() -> None:
    assert token_f1("The Cat, sat!", "cat sat") == 1.0
    assert token_f1("cat", "cat sat") == pytest.approx(2 / 3)
    assert token_f1("", "") == 1.0 and token_f1("", "cat") == 0.0


@pytest.mark.parametrize(
    ("reference", "problem"),
    [
        (None, "needs a reference_field"),
        ("nope", "not one of fields"),
        ("summary", "is the scored field"),
    ],
)
def test_reference_field_is_checked(
    context: BuildContext, reference: str | None, problem: str
) -> None:
    config = target_config(name="r", kind="builtin", metric="rouge_l", reference_field=reference)
    with pytest.raises(InputError, match=problem) as info:
        build_target(config, context)
    assert info.value.field == "targets.r.reference_field"


def test_unknown_metric_names_the_field(context: BuildContext) -> None:
    config = target_config(name="r", kind="builtin", metric="meteor", reference_field="source")
    with pytest.raises(InputError) as info:
        build_target(config, context)
    assert info.value.field == "targets.r.metric"
