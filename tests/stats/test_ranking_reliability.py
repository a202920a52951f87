"""The labels' split-half reliability of the targets' order (`sane.stats.ranking_reliability`):
what a suite's rank correlation with a human benchmark is read against."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sp

from sane.stats import ranking_reliability


def _targets(weights: list[float], labels: np.ndarray, seed: int = 1) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {f"t{i}": w * labels + rng.normal(size=labels.size) for i, w in enumerate(weights)}


def test_targets_far_apart_are_ordered_alike_by_both_halves() -> None:
    labels = np.random.default_rng(0).normal(size=400)
    got = ranking_reliability(_targets([0.0, 0.5, 1.0, 2.0, 4.0], labels), labels, binary=False)
    assert got is not None and got.median == pytest.approx(1.0) and got.interval[0] >= 0.8
    assert got.targets == 5 and got.records == 400 and got.splits == 200


def test_targets_the_labels_cannot_tell_apart_get_a_low_reliability() -> None:
    labels = np.random.default_rng(0).normal(size=60)
    same = _targets([0.5] * 6, labels)  # six equally good targets: their order is chance
    got = ranking_reliability(same, labels, binary=False)
    assert got is not None and got.median < 0.5 and got.interval[0] < 0 < got.interval[1]
    assert got.full == got.median or got.full < 0.67  # no step-up of a reliability below 0
    assert "split-half reliability" in got.sentence()


def test_the_whole_set_figure_is_the_spearman_brown_step_up_and_one_split_is_by_hand() -> None:
    labels = np.array([0.0, 1, 2, 3, 4, 5, 6, 7])
    scores = {"a": labels.copy(), "b": np.array([0.0, 2, 1, 3, 4, 6, 5, 7]), "c": -labels}
    got = ranking_reliability(scores, labels, binary=False, splits=1, seed=3)
    order = np.random.default_rng(3).permutation(8)
    halves = [
        [sp.spearmanr(v[part], labels[part]).statistic for v in scores.values()]
        for part in (order[:4], order[4:])
    ]
    expected = sp.spearmanr(*halves).statistic
    assert got is not None and got.median == pytest.approx(expected)
    assert got.full == pytest.approx(2 * expected / (1 + expected))


def test_binary_labels_use_auroc_and_too_few_targets_give_none() -> None:
    labels = (np.random.default_rng(0).normal(size=300) > 0).astype(float)
    got = ranking_reliability(_targets([0.0, 1.0, 3.0], labels), labels, binary=True)
    assert got is not None and got.median == pytest.approx(1.0)
    two = dict(list(_targets([0.0, 1.0], labels).items()))
    assert ranking_reliability(two, labels, binary=True) is None
