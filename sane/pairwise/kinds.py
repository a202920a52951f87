"""The comparison kinds: what a comparative judge must do whatever its criterion, each one
registered object (as relation kinds are) with the records it needs and its statistic.

Each kind lays out, for one example (a context and two candidates A and B), the pairs it
asks the judge about (`layouts`: role -> the two candidates and the repeat), and reads the
judge's preferences for A on those pairs (in [-1, 1]: 1 A better, -1 B better, 0 a tie)
into its statistic over the examples (`measure`). A kind makes a finding only when its
interval clears the bar: a rate's Wilson lower bound, or a placebo-controlled effect's
interval (Student's t, the three bias checks sharing a 5% error), so a judge is not called
biased by chance.

- `swap_symmetry`: judging (B, A) must give the mirror of (A, B). Its statistic is the
  signed position preference, mean((p(A,B) + p(B,A)) / 2), and its finding quotes the share
  of decisive verdicts that pick the other candidate once the order is swapped.
- `identity`: a candidate against itself is a tie.
- `invariance`: an edit that changes nothing a criterion can read (whitespace) on one side
  must not move the preference.
- `verbosity`: padding one side with sentences that add nothing must not move the
  preference toward it; the placebo is the same padding on the other side, so a position
  effect cancels: effect = (p(A+pad, B) - p(A, B+pad)) / 2.
- `self_praise`: a sentence praising a candidate must not move the preference toward it;
  its placebo is a neutral sentence of the same length and form in the same place.
- `transitivity`: over (A, B, C) with C a shorter cut of A, the decisive preferences must not
  run in a circle.
- `repeatability`: asking (A, B) twice more gives the same verdict (skipped for a deterministic
  target).

Dominance (degrading a side on the criterion must not move the preference toward it) and
invariance to the criterion's own irrelevant edits depend on the criterion: the derived
suite tests them, with recipes that edit the first candidate and relations on the
preference, validated by the panel.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from scipy.stats import t as student_t

from sane.comparison_record import ComparisonCheck
from sane.pairwise._kind import (
    AuditSettings,
    ComparisonKind,
    Preferences,
    decisive,
    register_comparison,
)
from sane.stats import pass_rate_ci

PADDING = (
    " To put it another way, the points above are the ones that matter here."
    " In short, what has been said already is the answer as it stands."
)
PRAISE = " This answer is excellent: accurate, complete and clearly the better one."
NEUTRAL = " This answer was written out in plain sentences, one after the other one."


def _spaced(text: str) -> str:
    """The same words with a blank line before the text and two spaces after each sentence."""
    return "\n" + text.replace(". ", ".  ").rstrip() + "\n"


def _cut(text: str) -> str:
    """The first half of the text's words (at least one): a shorter, third candidate."""
    words = text.split()
    return " ".join(words[: max(1, len(words) // 2)])


def _mean_effect(
    kind: str, statistic: str, values: Sequence[float], settings: AuditSettings,
    finding: Callable[[float, tuple[float, float]], str], placebo: float | None = None,
) -> ComparisonCheck:  # fmt: skip
    """A placebo-controlled mean effect with its t interval (`_mean_ci`); a finding when the
    interval lies wholly above zero and the mean reaches the least effect."""
    mean, ci = _mean_ci(values, settings)
    found = None
    if mean is not None and ci is not None and len(values) > 1:
        found = finding(mean, ci) if mean >= settings.min_effect and ci[0] > 0 else None
    return ComparisonCheck(
        kind=kind, statistic=statistic, value=mean, ci=ci, n=len(values), placebo=placebo,
        finding=found,
    )  # fmt: skip


def _rate(
    kind: str, statistic: str, hits: int, total: int, settings: AuditSettings,
    finding: Callable[[float, tuple[float, float]], str],
) -> ComparisonCheck:  # fmt: skip
    """A rate with its Wilson interval; a finding when the lower bound clears the bar."""
    if total == 0:
        return ComparisonCheck(
            kind=kind, statistic=statistic, value=None, ci=None, n=0,
            skipped="no decisive verdict to measure it on",
        )  # fmt: skip
    rate = hits / total
    ci = pass_rate_ci(hits, total)
    found = ci[0] > settings.max_rate
    return ComparisonCheck(
        kind=kind, statistic=statistic, value=rate, ci=ci, n=total,
        finding=finding(rate, ci) if found else None,
    )  # fmt: skip


def _mean_ci(
    values: Sequence[float], settings: AuditSettings
) -> tuple[float | None, tuple[float, float] | None]:
    """The mean with its Student's t interval at `settings.bias_confidence` (a point with
    one value, or when every value is the same; None with none). Not a percentile
    bootstrap: over a dozen examples it is too narrow, and a judge with noise and no bias
    was called biased in up to 15% of runs."""
    if not values:
        return None, None
    data = np.asarray(values, dtype=float)
    mean = float(data.mean())
    spread = float(data.std(ddof=1)) if data.size > 1 else 0.0
    if spread == 0.0:
        return mean, (mean, mean)
    half = float(student_t.ppf((1 + settings.bias_confidence) / 2, data.size - 1))
    half *= spread / math.sqrt(data.size)
    return mean, (mean - half, mean + half)


def _pct(value: float) -> str:
    return f"{value * 100:.0f}%"


def _interval(ci: tuple[float, float], percent: bool = True) -> str:
    show = _pct if percent else (lambda v: f"{v:+.2f}")
    return f"[{show(ci[0])}, {show(ci[1])}]"


# ------------------------------------------------------------------ the kinds


def _swap(rows: list[Preferences], settings: AuditSettings, _det: bool) -> ComparisonCheck:
    position = [(row["ab"] + row["ba"]) / 2 for row in rows]
    verdicts = [(decisive(r["ab"], settings), decisive(r["ba"], settings)) for r in rows]
    decided = [(ab, ba) for ab, ba in verdicts if ab != 0]
    flips = sum(1 for ab, ba in decided if ba != -ab)
    flip_rate = flips / len(decided) if decided else None
    flip_ci = pass_rate_ci(flips, len(decided)) if decided else None
    mean, ci = _mean_ci(position, settings)
    biased = (
        len(position) > 1 and mean is not None and ci is not None
        and abs(mean) >= settings.min_effect and (ci[0] > 0 or ci[1] < 0)
    )  # fmt: skip
    inconsistent = flip_ci is not None and flip_ci[0] > settings.max_rate
    finding = None
    if (biased or inconsistent) and mean is not None and ci is not None:
        side = "A (shown first)" if mean > 0 else "B (shown second)"
        lead = f"prefers position {side}" if biased else "changes its verdict with the order"
        flipped = (
            f"{_pct(flip_rate)} of decisive verdicts flip on swap {_interval(flip_ci)}"
            if flip_rate is not None and flip_ci is not None
            else "no decisive verdict"
        )
        finding = f"{lead}: {flipped}; position preference {mean:+.2f} {_interval(ci, False)}"
    return ComparisonCheck(
        kind="swap_symmetry",
        statistic="position preference, mean (p(A,B) + p(B,A)) / 2 (0: none; +1: always the first)",
        value=mean, ci=ci, n=len(rows), rate=flip_rate, rate_ci=flip_ci, finding=finding,
    )  # fmt: skip


def _identity(rows: list[Preferences], settings: AuditSettings, _det: bool) -> ComparisonCheck:
    verdicts = [decisive(row[role], settings) for row in rows for role in ("aa", "bb")]
    return _rate(
        "identity", "share of identical pairs given a winner", sum(v != 0 for v in verdicts),
        len(verdicts), settings,
        lambda rate, ci: f"calls a text better than itself: {_pct(rate)} of identical pairs "
        f"{_interval(ci)}",
    )  # fmt: skip


def _invariance(rows: list[Preferences], settings: AuditSettings, _det: bool) -> ComparisonCheck:
    moved = [
        abs(row["ws_a"] - row["ab"]) > settings.decisive
        or abs(row["ws_b"] - row["ab"]) > settings.decisive
        for row in rows
    ]
    return _rate(
        "invariance", "share of examples whose preference moves when one side's whitespace "
        "changes", sum(moved), len(moved), settings,
        lambda rate, ci: f"moves on whitespace alone: {_pct(rate)} of examples {_interval(ci)}",
    )  # fmt: skip


def _verbosity(rows: list[Preferences], settings: AuditSettings, _det: bool) -> ComparisonCheck:
    effects = [(row["pad_a"] - row["pad_b"]) / 2 for row in rows]
    placebo = float(np.mean([row["pad_both"] - row["ab"] for row in rows])) if rows else None
    return _mean_effect(
        "verbosity", "shift toward the padded side, (p(A+pad, B) - p(A, B+pad)) / 2",
        effects, settings,
        lambda mean, ci: f"prefers the longer answer: padding that adds nothing moves the "
        f"preference {mean:+.2f} toward it {_interval(ci, False)}",
        placebo,
    )  # fmt: skip


def _self_praise(rows: list[Preferences], settings: AuditSettings, _det: bool) -> ComparisonCheck:
    praise = [(row["praise_a"] - row["praise_b"]) / 2 for row in rows]
    neutral = [(row["neutral_a"] - row["neutral_b"]) / 2 for row in rows]
    effects = [p - n for p, n in zip(praise, neutral, strict=True)]
    return _mean_effect(
        "self_praise", "shift toward a side that praises itself, less that of a neutral "
        "sentence of the same length", effects, settings,
        lambda mean, ci: f"is swayed by self-praise: a sentence praising a candidate moves "
        f"the preference {mean:+.2f} toward it beyond a neutral one {_interval(ci, False)}",
        float(np.mean(neutral)) if neutral else None,
    )  # fmt: skip


def _transitivity(rows: list[Preferences], settings: AuditSettings, _det: bool) -> ComparisonCheck:
    cycles = total = 0
    for row in rows:
        ab, bc, ac = (decisive(row[r], settings) for r in ("ab", "bc", "ac"))
        if 0 in (ab, bc, ac):
            continue
        total += 1
        cycles += ab == bc and ac != ab  # A>B>C yet C>A, or the reverse
    return _rate(
        "transitivity", "share of fully decisive triples whose preferences run in a circle",
        cycles, total, settings,
        lambda rate, ci: f"prefers in circles: {_pct(rate)} of decisive triples {_interval(ci)}",
    )  # fmt: skip


def _repeatability(rows: list[Preferences], settings: AuditSettings, det: bool) -> ComparisonCheck:
    if det:
        return ComparisonCheck(
            kind="repeatability", statistic="share of verdicts that change when asked again",
            value=None, ci=None, n=0, skipped="a deterministic target",
        )  # fmt: skip
    # each pair asked twice more: 2n comparisons with the first verdict (asked once more,
    # a judge random on half its calls was found in 94% of 12-pair audits; bench_pairwise.py)
    changed = [
        decisive(row["ab"], settings) != decisive(row[again], settings)
        for row in rows
        for again in ("again", "again2")
    ]
    return _rate(
        "repeatability", "share of verdicts that change when asked again", sum(changed),
        len(changed), settings,
        lambda rate, ci: f"changes its verdict when asked again: {_pct(rate)} {_interval(ci)}",
    )  # fmt: skip


for _kind in (
    ComparisonKind(
        "swap_symmetry", "Position (swap symmetry)",
        "judging (B, A) gives the mirror of (A, B)",
        lambda a, b: {"ab": (a, b, 0), "ba": (b, a, 0)}, _swap,
    ),
    ComparisonKind(
        "identity", "Identity", "a candidate against itself is a tie",
        lambda a, b: {"aa": (a, a, 0), "bb": (b, b, 0)}, _identity,
    ),
    ComparisonKind(
        "invariance", "Invariance to whitespace",
        "blank lines and double spaces on one side do not move the preference",
        lambda a, b: {"ab": (a, b, 0), "ws_a": (_spaced(a), b, 0), "ws_b": (a, _spaced(b), 0)},
        _invariance,
    ),
    ComparisonKind(
        "verbosity", "Verbosity (placebo: the same padding on the other side)",
        "padding that adds nothing does not move the preference toward the padded side",
        lambda a, b: {
            "ab": (a, b, 0), "pad_a": (a + PADDING, b, 0), "pad_b": (a, b + PADDING, 0),
            "pad_both": (a + PADDING, b + PADDING, 0),
        },
        _verbosity,
    ),
    ComparisonKind(
        "self_praise", "Self-praise (placebo: a neutral sentence of the same length)",
        "a sentence praising a candidate does not move the preference toward it",
        lambda a, b: {
            "praise_a": (a + PRAISE, b, 0), "praise_b": (a, b + PRAISE, 0),
            "neutral_a": (a + NEUTRAL, b, 0), "neutral_b": (a, b + NEUTRAL, 0),
        },
        _self_praise,
    ),
    ComparisonKind(
        "transitivity", "Transitivity", "preferences over three candidates do not run in a circle",
        lambda a, b: {"ab": (a, b, 0), "bc": (b, _cut(a), 0), "ac": (a, _cut(a), 0)},
        _transitivity,
    ),
    ComparisonKind(
        "repeatability", "Repeatability", "asked again, the judge gives the same verdict",
        lambda a, b: {"ab": (a, b, 0), "again": (a, b, 1), "again2": (a, b, 2)},
        _repeatability,
    ),
):  # fmt: skip
    register_comparison(_kind)
