"""A comparative judge's preferences against human preferences over the same pairs.

Each pair has a human verdict (A better, B better, or a tie) and the judge's preference for
A on [-1, 1]. Reported: the accuracy on the pairs the humans decided (the judge must pick
the humans' winner; a judge's tie there is a miss), with its Wilson interval, the share of
those the judge left a tie, and Cohen's kappa over the three verdicts (chance-corrected: a
judge that always says A scores the share of pairs where A won, and kappa 0). This is the
agreement MT-Bench and the Arena-style auto-annotators report for their judges.
"""

from __future__ import annotations

from collections.abc import Sequence

from sane.stats._base import StatsModel
from sane.stats._verdicts import Rate, cohen_kappa, wilson_rate


class PairwiseAgreement(StatsModel):
    """A judge's verdicts against human pairwise verdicts."""

    pairs: int  # pairs with both verdicts
    decided: int  # pairs the humans decided (not a tie)
    accuracy: Rate  # on the decided pairs: the judge picked the humans' winner
    judge_ties: int  # decided pairs the judge called a tie
    kappa: float | None  # Cohen's kappa over {B, tie, A}


def verdict_of(preference: float, tie_band: float = 0.1) -> int:
    """+1 (A), -1 (B) or 0 (a tie) from a preference for A on [-1, 1]."""
    return 0 if abs(preference) <= tie_band else (1 if preference > 0 else -1)


def pairwise_agreement(
    preferences: Sequence[float], human: Sequence[int], *, tie_band: float = 0.1
) -> PairwiseAgreement:
    """Agreement of a judge's `preferences` (for A, on [-1, 1]) with `human` verdicts (+1 A,
    -1 B, 0 a tie), pair by pair."""
    if len(preferences) != len(human):
        raise ValueError("preferences and human verdicts need the same length")
    if any(h not in (-1, 0, 1) for h in human):
        raise ValueError("a human verdict is +1 (A), -1 (B) or 0 (a tie)")
    judge = [verdict_of(p, tie_band) for p in preferences]
    decided = [(j, h) for j, h in zip(judge, human, strict=True) if h != 0]
    return PairwiseAgreement(
        pairs=len(judge),
        decided=len(decided),
        accuracy=wilson_rate(sum(j == h for j, h in decided), len(decided)),
        judge_ties=sum(j == 0 for j, _ in decided),
        kappa=cohen_kappa(judge, list(human)) if judge else None,
    )
