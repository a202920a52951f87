"""Human pairwise verdicts for a comparative suite (`sane rank --human-data` on pairs).

A comparative judge says which of two candidates is better, so its human benchmark is a set
of pairs: per row, the context fields, both candidates and the humans' verdict (A, B or a
tie; or +1, -1, 0). Each target gives its preference on every pair, and its agreement is
`sane.stats.pairwise_agreement`: the accuracy on the pairs the humans decided (Wilson
interval), its ties there, and Cohen's kappa over the three verdicts. The accuracy is then
the target's benchmark value, which the suite's ranking is compared with.

A pair a target cannot score is an error: counted, and left out of that target's agreement,
never read as a tie.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from sane._record import Record
from sane.analyses.human_alignment import HumanBenchmark, read_labelled, score_all, scored
from sane.errors import InputError
from sane.records import ScorerSpec
from sane.scorers.base import Target
from sane.stats import pairwise_agreement

# A verdict as people write it: the candidate that won, or a tie (case is ignored).
VERDICTS = {"a": 1, "b": -1, "tie": 0, "+1": 1, "1": 1, "-1": -1, "0": 0}
MEASURE = "pairwise accuracy"


class HumanPairs(Record):
    """Pairs carrying the spec's fields (both candidates among them), one human verdict
    each: +1 the first compared field better, -1 the second, 0 a tie."""

    path: str
    label_field: str
    records: list[dict[str, str]]
    verdicts: list[int]


def verdict(value: object, where: str, path: Path) -> int:
    """A human verdict as +1 (A), -1 (B) or 0 (a tie), or bad input naming the row."""
    text = str(value).strip().lower()
    if text in VERDICTS and not isinstance(value, bool):
        return VERDICTS[text]
    try:
        number = float(text)  # 1.0 and -1.0 as a JSON number or a spreadsheet writes them
    except ValueError:
        number = None
    if number in (1.0, -1.0, 0.0) and not isinstance(value, bool):
        return int(number)
    raise InputError(str(path), where, f"verdict {value!r} is not A, B or tie (or +1, -1, 0)")


def load_pairs(
    path: str | Path,
    spec: ScorerSpec,
    *,
    label_field: str,
    fields: Mapping[str, str] | None = None,
    limit: int | None = None,
    seed: int = 0,
    invert: bool = False,
) -> HumanPairs:
    """The file's pairs (JSON, JSONL, CSV or TSV: sane.analyses.human_alignment reads them),
    mapped onto the spec's fields (``fields``: spec field -> data column); ``invert``: the
    verdicts name the worse candidate."""
    if not spec.comparative:
        raise InputError(None, "--human-data", f"spec {spec.name} is not comparative")
    path = Path(path)
    records, raw = read_labelled(
        path, spec, label_field=label_field, fields=fields, limit=limit, seed=seed
    )
    sign = -1 if invert else 1
    verdicts = [
        sign * verdict(value, f"record {number}.{label_field}", path)
        for number, value in enumerate(raw, start=1)
    ]
    return HumanPairs(path=str(path), label_field=label_field, records=records, verdicts=verdicts)


async def score_pairs(
    targets: Mapping[str, Target], pairs: HumanPairs, spec: ScorerSpec, *, timeout_s: float
) -> HumanBenchmark:
    """Every target's preference on every pair (2 * normalised score - 1, as the audit reads
    it), against the humans' verdicts."""
    benchmark = HumanBenchmark(
        source=f"{pairs.path}:{pairs.label_field} ({MEASURE})",
        measure=MEASURE,
        records=len(pairs.records),
    )
    for name, target in targets.items():
        results = await score_all(target, pairs.records, spec, timeout_s)
        kept = scored(benchmark, name, results)
        agreement = pairwise_agreement(
            [2.0 * float(results[i]) - 1.0 for i in kept], [pairs.verdicts[i] for i in kept]
        )
        benchmark.pairwise[name] = agreement
        if agreement.accuracy.value is not None:
            benchmark.values[name] = agreement.accuracy.value
    return benchmark
