"""A human benchmark computed by the product: each target's agreement with human labels.

Why: ranking judges "against humans" (SANE paper, section 5.3) needs one human-derived
number per target. Users rarely have it; they have a labelled data set. This module loads
such a set (JSON, JSONL, CSV or TSV), scores every record with each target of a suite, and
reduces each target's scores to its agreement with the labels: Spearman's rho for graded
labels, AUROC for binary ones (:func:`sane.stats.label_agreement`). Those per-target values
are then the benchmark the suite's pass-rate ranking is compared with.

A record a target cannot score is an error: it is counted and left out of that target's
agreement, never given a score. A comparative spec's data are pairs with a human verdict
each (sane.analyses.human_pairs), and each target's agreement is its pairwise accuracy.
"""

from __future__ import annotations

import asyncio
import csv
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from sane.api import build_targets
from sane.errors import InputError, LLMError, ScorerError
from sane.llm import LLMClient, LLMSettings
from sane.records import ScorerSpec
from sane.scorers.base import Target
from sane.scorers.execute import normalise, score_variants
from sane.scorers.suite_targets import NOT_RUN, CodeTrust
from sane.stats import (
    LabelAgreement,
    PairwiseAgreement,
    RankingReliability,
    label_agreement,
    ranking_reliability,
    rogan_gladen,
)
from sane.suites.store import SuiteStore
from sane.target_kind import is_control

BINARY_WORDS = {"1": 1.0, "0": 0.0, "true": 1.0, "false": 0.0, "yes": 1.0, "no": 0.0}
BATCH = 16


class LabelledSet(BaseModel):
    """Records carrying the spec's fields, and one human label per record."""

    model_config = ConfigDict(extra="forbid")

    path: str
    label_field: str
    binary: bool
    records: list[dict[str, str]]
    labels: list[float]


class HumanBenchmark(BaseModel):
    """Per-target agreement with the labels; ``values`` is the benchmark (target -> value)."""

    model_config = ConfigDict(extra="forbid")

    source: str
    measure: str
    records: int
    values: dict[str, float] = Field(default_factory=dict)
    agreement: dict[str, LabelAgreement] = Field(default_factory=dict)
    # how reliably the labels order the targets (split-half over the records all scored)
    reliability: RankingReliability | None = None
    # a comparative spec's targets against human pairwise verdicts (values: their accuracy)
    pairwise: dict[str, PairwiseAgreement] = Field(default_factory=dict)
    errors: dict[str, int] = Field(default_factory=dict)
    first_error: dict[str, str] = Field(default_factory=dict)


# ------------------------------------------------------------------ loading


def _rows(path: Path) -> list[dict]:
    """The file's records: a JSON list (or {"data": [...]}), JSON lines, CSV or TSV."""
    text = path.read_text(encoding="utf-8")
    suffix = path.suffix.lower()
    try:
        if suffix == ".json":
            data = json.loads(text)
            data = data.get("data", data) if isinstance(data, dict) else data
        elif suffix == ".jsonl":
            data = [json.loads(line) for line in text.splitlines() if line.strip()]
        elif suffix in {".csv", ".tsv"}:
            delimiter = "\t" if suffix == ".tsv" else ","
            data = list(csv.DictReader(text.splitlines(), delimiter=delimiter))
        else:
            raise InputError(str(path), None, "unknown format (use .json, .jsonl, .csv or .tsv)")
    except json.JSONDecodeError as exc:
        raise InputError(str(path), None, f"not valid JSON: {exc.msg}") from None
    if not isinstance(data, list) or not all(isinstance(row, dict) for row in data):
        raise InputError(str(path), None, "expected a list of records")
    return data


def _get(row: Mapping, dotted: str) -> object:
    """A field by dotted path (``scores.consistency``); KeyError if absent."""
    value: object = row
    for part in dotted.split("."):
        if not isinstance(value, Mapping) or part not in value:
            raise KeyError(dotted)
        value = value[part]
    return value


def _label(value: object, binary: bool, where: str, path: Path) -> float:
    text = str(value).strip().lower()
    if binary:
        if text in BINARY_WORDS:
            return BINARY_WORDS[text]
        try:
            number = float(text)
        except ValueError:
            number = float("nan")
        if number in (0.0, 1.0):
            return number
        raise InputError(str(path), where, f"binary label {value!r} is not 0/1, yes/no, true/false")
    try:
        return float(text)
    except ValueError:
        raise InputError(str(path), where, f"label {value!r} is not a number") from None


def read_labelled(
    path: Path,
    spec: ScorerSpec,
    *,
    label_field: str,
    fields: Mapping[str, str] | None = None,
    limit: int | None = None,
    seed: int = 0,
) -> tuple[list[dict[str, str]], list[object]]:
    """The file's records mapped onto the spec's fields, and each one's raw label (what it
    means is the caller's to read: a score, 0/1, a pairwise verdict)."""
    if not path.is_file():
        raise InputError(str(path), None, "file not found")
    columns = {name: name for name in spec.fields} | dict(fields or {})
    unknown = sorted(set(fields or {}) - set(spec.fields))
    if unknown:
        raise InputError(None, "--field", f"{unknown[0]!r} is not a field of spec {spec.name}")
    rows = _rows(path)
    if limit is not None and limit < len(rows):
        keep = np.sort(np.random.default_rng(seed).choice(len(rows), size=limit, replace=False))
        rows = [rows[int(i)] for i in keep]
    records, labels = [], []
    for number, row in enumerate(rows, start=1):
        try:
            record = {name: str(_get(row, column)) for name, column in columns.items()}
            raw_label = _get(row, label_field)
        except KeyError as missing:
            raise InputError(
                str(path), f"record {number}", f"no field {missing.args[0]!r}"
            ) from None
        records.append(record)
        labels.append(raw_label)
    if not records:
        raise InputError(str(path), None, "no records")
    return records, labels


def load_labelled(
    path: str | Path,
    spec: ScorerSpec,
    *,
    label_field: str,
    binary: bool = False,
    fields: Mapping[str, str] | None = None,
    limit: int | None = None,
    seed: int = 0,
) -> LabelledSet:
    """Records mapped onto the spec's fields (``fields``: spec field -> data column).

    Spec fields not named in ``fields`` are read from the column of the same name. With
    ``limit`` a seeded random sample of that many records is kept (file order preserved).
    """
    path = Path(path)
    records, raw = read_labelled(
        path, spec, label_field=label_field, fields=fields, limit=limit, seed=seed
    )
    labels = [
        _label(value, binary, f"record {number}.{label_field}", path)
        for number, value in enumerate(raw, start=1)
    ]
    return LabelledSet(
        path=str(path), label_field=label_field, binary=binary, records=records, labels=labels
    )


# ------------------------------------------------------------------ scoring


async def _score_chunk(
    target: Target, chunk: list[dict[str, str]], spec: ScorerSpec, timeout_s: float
) -> list[float | str]:
    """Normalised scores of a chunk, or the error message of each record that failed."""
    roles = {f"record {i}": record for i, record in enumerate(chunk)}
    try:
        scores = await score_variants(target, roles, 1, timeout_s)
        return [normalise(scores[role][0], target.contract, spec.output) for role in roles]
    except (ScorerError, LLMError):
        if len(chunk) == 1:
            raise
    # One bad record fails a batch: score the records one by one to find it.
    results: list[float | str] = []
    for record in chunk:
        try:
            results += await _score_chunk(target, [record], spec, timeout_s)
        except (ScorerError, LLMError) as exc:
            results.append(str(exc))
    return results


async def score_all(
    target: Target, records: list[Mapping[str, str]], spec: ScorerSpec, timeout_s: float
) -> list[float | str]:
    """Every record's normalised score, or its error message, in batches."""
    results: list[float | str] = []
    for start in range(0, len(records), BATCH):
        chunk = [dict(r) for r in records[start : start + BATCH]]
        try:
            results += await _score_chunk(target, chunk, spec, timeout_s)
        except (ScorerError, LLMError) as exc:
            results.append(str(exc))
    return results


def scored(benchmark: HumanBenchmark, name: str, results: Sequence[float | str]) -> list[int]:
    """The indices of the records `name` scored; its failures (error lines, from
    `score_all`) are counted in `benchmark` with the first one kept, never read as scores."""
    failed = [value for value in results if isinstance(value, str)]
    benchmark.errors[name] = len(failed)
    if failed:
        benchmark.first_error[name] = failed[0]
    return [i for i, value in enumerate(results) if isinstance(value, float)]


async def score_labelled(
    targets: Mapping[str, Target],
    data: LabelledSet,
    spec: ScorerSpec,
    *,
    timeout_s: float = 60.0,
    invert_labels: bool = False,
    n_resamples: int = 1000,
    seed: int = 0,
    threshold: float = 0.5,
    bar: float | None = None,
    examples: Sequence[Mapping[str, str]] = (),
) -> HumanBenchmark:
    """Score every record with every target and reduce to agreement with the labels.

    With binary labels each target's verdicts (normalised score >= ``threshold``) are also
    compared with the labels (kappa, TPR/TNR, certification at ``bar``), and where
    ``examples`` are given (the suite's own, unlabelled) the share of them the target calls
    positive is corrected for its error rates (Rogan-Gladen): the prevalence its verdicts
    estimate on the data it is meant for.

    Scores are normalised in the spec's direction; ``invert_labels`` flips the labels'
    direction when they run opposite to the spec's scores (e.g. "is toxic" labels for a
    civility scorer).
    """
    labels = np.asarray(data.labels, dtype=float)
    if invert_labels:
        labels = (1.0 - labels) if data.binary else -labels
    measure = "auroc" if data.binary else "spearman"
    benchmark = HumanBenchmark(
        source=f"{data.path}:{data.label_field} ({measure})",
        measure=measure,
        records=len(data.records),
    )
    scored_by: dict[str, list[float | str]] = {}
    for name, target in targets.items():
        results = await score_all(target, data.records, spec, timeout_s)
        scored_by[name] = results
        kept = scored(benchmark, name, results)
        agreement = label_agreement(
            [results[i] for i in kept],  # type: ignore[misc]
            labels[kept].tolist(),
            binary=data.binary,
            n_resamples=n_resamples,
            seed=seed,
            threshold=threshold,
            bar=bar,
        )
        if agreement.verdicts is not None and examples:
            verdicts = [
                v >= threshold
                for v in await score_all(target, list(examples), spec, timeout_s)
                if isinstance(v, float)
            ]
            if verdicts:
                agreement.verdicts.prevalence = rogan_gladen(
                    sum(verdicts), len(verdicts), agreement.verdicts.tpr, agreement.verdicts.tnr
                )
        benchmark.agreement[name] = agreement
        if agreement.value is not None:
            benchmark.values[name] = agreement.value
    valued = {name: scored_by[name] for name in benchmark.values}
    benchmark.reliability = _reliability(valued, labels, data.binary, seed)
    return benchmark


def _reliability(
    scored_by: Mapping[str, Sequence[float | str]], labels: np.ndarray, binary: bool, seed: int
) -> RankingReliability | None:
    """The labels' split-half reliability of the order of the targets that have an agreement
    value, on the records every one of them scored (a failure is an error line, never a
    score, so a record one target failed is left out for all)."""
    if not scored_by:
        return None
    every = [
        i
        for i in range(len(labels))
        if all(isinstance(results[i], float) for results in scored_by.values())
    ]
    table = {name: [float(results[i]) for i in every] for name, results in scored_by.items()}
    return ranking_reliability(table, labels[every].tolist(), binary=binary, seed=seed)


def human_benchmark(
    suite: str | Path,
    data: str | Path,
    *,
    label_field: str,
    binary: bool = False,
    fields: Mapping[str, str] | None = None,
    targets: Sequence[str] | None = None,
    limit: int | None = None,
    invert_labels: bool = False,
    timeout_s: float = 60.0,
    llm: LLMSettings | None = None,
    seed: int = 0,
    trust_suite_code: bool = False,
    threshold: float = 0.5,
    bar: float | None = None,
) -> HumanBenchmark:
    """The suite's executed targets (or the named ones) scored on a labelled data set (for
    a comparative suite, pairs with human verdicts: sane.analyses.human_pairs).

    The LLM calls of judge targets go through the cache but are not recorded in the suite
    (they are not part of its execution). With binary labels, ``threshold`` makes verdicts of
    the normalised scores, ``bar`` certifies them, and the suite's examples give the
    prevalence their verdicts estimate (:func:`score_labelled`). A python target stored in
    the suite runs only with
    ``trust_suite_code`` (and its module file as recorded); without it, it is refused by name.
    """
    from sane.analyses.human_pairs import HumanPairs, load_pairs, score_pairs

    store = SuiteStore(suite, readonly=True)  # read only: labelled data is scored, not stored
    try:
        spec = store.spec()
        examples = store.examples()
        labelled: LabelledSet | HumanPairs
        if spec.comparative:
            if binary:
                raise InputError(
                    None, "--binary", "a comparative suite's human data are pairwise verdicts "
                    "(A, B or tie), not 0/1 labels",
                )  # fmt: skip
            labelled = load_pairs(
                data, spec, label_field=label_field, fields=fields, limit=limit, seed=seed,
                invert=invert_labels,
            )  # fmt: skip
        else:
            labelled = load_labelled(
                data,
                spec,
                label_field=label_field,
                binary=binary,
                fields=fields,
                limit=limit,
                seed=seed,
            )
        client = LLMClient(llm or LLMSettings())
        controls = {t.config.name for t in store.targets() if is_control(t.config)}
        executed = {e.target for e in store.executions()} - controls  # candidates only
        names = list(targets) if targets else sorted(executed)
        chosen, not_run = build_targets(
            store, client, names or None, CodeTrust(suite_code=trust_suite_code)
        )
        if not_run:
            raise InputError(
                str(suite),
                "--trust-suite-code",
                f"target {not_run[0]!r}: {NOT_RUN}; pass --trust-suite-code to run its code, "
                "or leave it out with --target",
            )
    finally:
        store.close()

    async def scored() -> HumanBenchmark:
        try:
            if isinstance(labelled, HumanPairs):
                return await score_pairs(chosen, labelled, spec, timeout_s=timeout_s)
            return await score_labelled(
                chosen,
                labelled,
                spec,
                timeout_s=timeout_s,
                invert_labels=invert_labels,
                seed=seed,
                threshold=threshold,
                bar=bar,
                examples=examples,
            )
        finally:
            await client.aclose()  # this loop's connections, before the loop ends

    return asyncio.run(scored())
