"""Human-alignment experiment: do a suite's pass rates rank targets as human labels do?

The SANE paper (section 5.3) ranks judges by their suite pass rate and by a human-labelled
benchmark, and reports the rank correlation of the two rankings. This script reruns that
on the embedded offline models:

1. generate (or resume) a suite for a built-in spec with a local agent model;
2. execute it on the cheap local targets;
3. score a seeded sample of a human-labelled data set with the same targets and compute
   each target's agreement with the labels (Spearman's rho; AUROC with --binary);
4. print both rankings and Spearman / Kendall between them, with bootstrap intervals.

Faithfulness on QAGS-XSum (binary consistency labels), from the repository root:

    .venv/bin/python experiments/human_alignment.py \
        --data ../shared/data/qags/qags_xsum.json --binary \
        --label-field scores.consistency --field summary=system_output

Professionalism on the Stanford politeness corpus (graded labels):

    .venv/bin/python experiments/human_alignment.py --spec builtin:professionalism \
        --data ../shared/data/politeness/wikipedia.annotated.csv \
        --label-field "Normalized Score" --field message=Request \
        --target smollm-judge --target qwen-judge

The data are read in place, never copied. Everything is cached (LLM calls in --cache, the
suite in --suite), so a rerun replays; an interrupted run resumes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

import sane
from sane.analyses.human_alignment import human_benchmark
from sane.errors import SaneError
from sane.generators import get_generator
from sane.llm import LLMSettings
from sane.reporting import build_report
from sane.suites.store import SuiteStore

HERE = Path(__file__).resolve().parent
CHEAP_TARGETS = ["rouge-l", "chrf", "minilm-cosine", "bertscore-minilm", "smollm-judge"]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, type=Path, help="Labelled data file.")
    parser.add_argument("--label-field", required=True, help="Label field (dotted path).")
    parser.add_argument("--binary", action="store_true", help="0/1 labels: AUROC.")
    parser.add_argument("--invert-labels", action="store_true")
    parser.add_argument(
        "--field", action="append", default=[], help="SPEC_FIELD=DATA_COLUMN (repeat)."
    )
    parser.add_argument("--limit", type=int, default=60, help="Labelled records to score.")
    parser.add_argument("--spec", default="builtin:faithfulness")
    parser.add_argument("--target", action="append", default=None, help="Target (repeat).")
    parser.add_argument("--model", default="local/qwen2.5-coder-1.5b", help="Agent model.")
    parser.add_argument("--generator", default="derived", help="derived or fixed:NAME.")
    parser.add_argument("--votes", type=int, default=3)
    parser.add_argument("--cases", type=int, default=4)
    parser.add_argument("--tau", type=int, default=None)
    parser.add_argument("--capabilities", type=int, default=3)
    parser.add_argument("--recipes", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--suite", type=Path, default=HERE / "out" / "human_alignment.db")
    parser.add_argument("--cache", type=Path, default=HERE / "out" / "llm-cache.db")
    parser.add_argument("--script", type=Path, default=None, help="Scripted-model rules (tests).")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=120.0, help="Seconds per scorer call.")
    parser.add_argument("--out", type=Path, default=None, help="Write the result JSON here.")
    return parser.parse_args(argv)


def _fields(pairs: list[str]) -> dict[str, str]:
    return dict(pair.split("=", 1) for pair in pairs)


def _ci(ci: tuple[float, float] | None) -> str:
    return "-" if ci is None else f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def run(args: argparse.Namespace, console: Console) -> dict:
    """Generate, execute, benchmark, compare; returns the result document."""
    args.suite.parent.mkdir(parents=True, exist_ok=True)
    llm = LLMSettings(cache_path=args.cache, script_path=args.script, concurrency=args.concurrency)
    targets = args.target or CHEAP_TARGETS
    started = time.perf_counter()
    get_generator(args.generator)
    sane.generate(
        args.spec,
        suite=args.suite,
        model=args.model,
        votes=args.votes,
        cases=args.cases,
        tau=args.tau,
        seed=args.seed,
        max_capabilities=args.capabilities,
        recipes_per_capability=args.recipes,
        generator=args.generator,
        llm=llm,
    )
    generated = time.perf_counter()
    sane.execute(args.suite, spec=args.spec, targets=targets, timeout_s=args.timeout, llm=llm)
    executed = time.perf_counter()
    benchmark = human_benchmark(
        args.suite,
        args.data,
        label_field=args.label_field,
        binary=args.binary,
        fields=_fields(args.field),
        targets=targets,
        limit=args.limit,
        invert_labels=args.invert_labels,
        timeout_s=args.timeout,
        llm=llm,
        seed=args.seed,
        trust_suite_code=True,  # the targets of the spec this run was given and just executed
    )
    store = SuiteStore(args.suite)
    try:
        snapshot = store.snapshot()
    finally:
        store.close()
    report = build_report(
        snapshot,
        human=benchmark.values,
        human_source=benchmark.source,
        human_agreement=benchmark.agreement,
    )
    alignment = report.human_alignment
    assert alignment is not None
    table = Table(title=f"{report.suite.scorer}: suite pass rate vs. agreement with human labels")
    for column in (
        "target",
        "pass rate",
        "95% CI",
        f"human {benchmark.measure}",
        "95% CI",
        "errors",
    ):
        table.add_column(column)
    for name in targets:
        summary = report.targets.get(name)
        agreement = benchmark.agreement.get(name)
        table.add_row(
            name,
            _num(summary.pass_rate if summary else None),
            _ci(summary.pass_rate_bootstrap_ci if summary else None),
            _num(agreement.value if agreement else None),
            _ci(agreement.ci if agreement else None),
            str(benchmark.errors.get(name, 0)),
        )
    console.print(table)
    funnel = report.validity
    console.print(
        f"suite: {funnel.candidate_recipes} candidate recipes, {funnel.aligned_recipes} aligned, "
        f"{funnel.validated_families} validated families, {funnel.joint_valid_cases} joint-valid "
        f"cases; {benchmark.records} labelled records from {args.data}",
        markup=False,
    )
    console.print(
        f"rank correlation over {alignment.n} targets: Spearman {_num(alignment.spearman)} "
        f"{_ci(alignment.spearman_ci)}, Kendall {_num(alignment.kendall)} "
        f"{_ci(alignment.kendall_ci)}" + (f" ({alignment.note})" if alignment.note else ""),
        markup=False,
    )
    console.print(
        f"time: generate {generated - started:.0f} s, execute {executed - generated:.0f} s, "
        f"benchmark {time.perf_counter() - executed:.0f} s",
        markup=False,
    )
    return {
        "suite": str(args.suite),
        "data": str(args.data),
        "records": benchmark.records,
        "validity": funnel.model_dump(mode="json"),
        "pass_rates": {n: report.targets[n].pass_rate for n in report.targets},
        "human": benchmark.model_dump(mode="json"),
        "alignment": alignment.model_dump(mode="json"),
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    console = Console()
    try:
        result = run(args, console)
    except SaneError as exc:
        console.print(f"human_alignment: {exc}", markup=False)
        return 1
    if args.out is not None:
        args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
