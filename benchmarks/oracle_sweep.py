"""The validity curve: the method measured against SIMULATED oracles of known skill.

Why: every verdict a suite gives rests on its oracle panel, and the panel's error depends on
the oracle's skill. A simulated oracle (`sim/accuracy=A,correlation=C,bias=0,truth=...`,
sane.simulation) answers every panel question from the exact reference scorer of
``reference_scorers.py`` and is wrong with a known probability, so this sweep measures what
each panel does with an oracle of each accuracy: these figures describe the method at that
skill, not any real model. Everything but the oracle is the real product (client, cache,
call records, panel, controls, executor).

By default the recipes come from the operator grid (``--generator operators``: every code
edit under every pair direction, most of them wrong for a given criterion), so every question
has an exact answer and the panel has something to reject. ``--proposer derived`` asks the
derived agent (``--model``) instead; its free-form recipes have no exact truth, the simulated
oracle refuses them (an error, recorded as such), and they are counted apart (``no_truth``).

For accuracy in {0.55, 0.65, 0.75, 0.85, 0.95, 1.0}, correlation in {0, 0.2}, the panels plain,
contrastive and blind, ``--seeds`` seeds and every criterion, one suite each; per
``PANEL/accuracy/correlation``, pooled over seeds and criteria. ``--difficulties`` adds the
oracle's item-level error (``difficulty``, sane.simulation.params: some questions misread on
every vote, others never); a setting with a difficulty is keyed
``PANEL/accuracy/correlation/dDIFFICULTY`` (difficulty 0, the default, adds nothing to the key,
the cell's file name or the oracle string, so stored cells stay valid):

  reference_false_fault_rate   reference faults / reference cases run (0 at accuracy 1.0)
  mutation_score               mutants faulted on a family the reference passes / mutants
  ladder_spearman              Spearman of pass rate against the noise ladder
  control_false_accept         planted known-wrong items the panel accepted / such items
  controls_failed              suites whose controls failed / suites
  right_recipe_recall          right recipes validated / right recipes proposed
  oracle_calls_per_validated_family

The last line is one JSON object: the table, plus ``threshold`` (per panel, the lowest swept
accuracy from which on, at correlation 0.2 and difficulty 0, every target below is met),
``failing_below`` (the swept accuracy just below it, where a target failed),
``threshold_by_correlation`` (the same per swept correlation, and difficulty where not 0),
``targets``, ``checks`` (accuracy 1.0 exact; controls catch bad suites) and
``simulated: true``. Cells are stored under --out, so a stopped sweep resumes.

    .venv/bin/python benchmarks/bench_validity.py --oracle-sweep            (the full sweep)
    .venv/bin/python benchmarks/bench_validity.py --oracle-sweep --seeds 1 --accuracies 0.85 1.0
    .venv/bin/python benchmarks/bench_validity.py --oracle-sweep --panels contrastive \
        --accuracies 0.85 --correlations 0.2 --difficulties 0 0.3      (item-level error)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from contextlib import nullcontext
from pathlib import Path

import reference_scorers as refs
from bench_validity import measure, pooled, ratio, write_spec
from pydantic import BaseModel

ACCURACIES = (0.55, 0.65, 0.75, 0.85, 0.95, 1.0)
CORRELATIONS = (0.0, 0.2)
DIFFICULTIES = (0.0,)  # the item-level error is swept only when asked for (--difficulties)
CASES = 10  # the RunConfig default; the sweep's example sets hold twelve examples each
HEADLINE_CORRELATION = 0.2
TARGETS = {  # at accuracy 0.85, correlation 0.2, for the default panel (issue "prove the panel")
    "reference_false_fault_rate": ("<=", 0.05),
    "control_false_accept": ("<=", 0.10),
    "mutation_score": (">=", 0.8),
    "ladder_spearman": (">=", 0.9),
    "right_recipe_recall": (">=", 0.8),
    "oracle_calls_per_validated_family": ("<=", 60),
}
BAD_SUITE_FALSE_FAULTS = 0.05  # a suite whose reference false-fault rate is above this is bad


class SweepCell(BaseModel):
    """One suite (criterion x panel x accuracy x correlation x difficulty x seed): the raw
    counts."""

    criterion: str
    panel: str
    accuracy: float
    correlation: float
    seed: int
    difficulty: float = 0.0  # cells stored before the field existed had none
    validated_families: int
    reference_cases: int
    reference_faults: int
    killed: dict[str, bool]
    ladder: dict[str, tuple[int, int]]
    controls_wrong: int
    controls_items: int
    controls_failed: bool
    right_proposed: int
    right_validated: int
    wrong_validated: int
    no_truth: int  # recipes with no exact truth (written freely): outside every rate
    oracle_calls: int
    wall_s: float


def sweep_spec(out: Path, criterion: str) -> Path:
    """The criterion's spec with the reference and its mutants as targets, under `out`."""
    return write_spec(out, criterion)


def oracle_string(
    criterion: str, accuracy: float, correlation: float, difficulty: float = 0.0
) -> str:
    from sane.simulation.params import SimulatedOracle

    oracle = SimulatedOracle(
        accuracy=accuracy,
        correlation=correlation,
        difficulty=difficulty,
        truth=refs.ref(criterion, "reference"),
    )
    return oracle.model_string()


def setting(correlation: float, difficulty: float = 0.0) -> str:
    """The oracle's setting besides its accuracy, as the table's keys write it."""
    return f"{correlation:g}" + (f"/d{difficulty:g}" if difficulty else "")


def table_key(panel: str, accuracy: float, correlation: float, difficulty: float = 0.0) -> str:
    return f"{panel}/{accuracy:g}/{setting(correlation, difficulty)}"


def _right_recipes(suite: Path, spec: Path, criterion: str) -> tuple[set[str], set[str], set[str]]:
    """(right recipe ids, wrong ones, ones with no exact truth), by the simulation's own truth
    (sane.simulation.truth), never by what the panel said."""
    from sane.records import PairRelation
    from sane.simulation.truth import NoTruth, load_truth
    from sane.suites.store import SuiteStore

    store = SuiteStore(suite, readonly=True)
    try:
        recipes = store.recipes()
        examples = Path(store.snapshot().spec.examples or "")
    finally:
        store.close()
    truth = load_truth(refs.ref(criterion, "reference"), spec, spec.parent / examples)
    right, wrong, unknown = set(), set(), set()
    for recipe in recipes:
        if not isinstance(recipe.relation, PairRelation):
            unknown.add(recipe.id)
            continue
        try:
            held = truth.recipe_holds(recipe.instruction, recipe.relation)
        except NoTruth:
            unknown.add(recipe.id)
            continue
        (right if held else wrong).add(recipe.id)
    return right, wrong, unknown


def run_cell(job: dict) -> SweepCell:
    """Generate, execute and measure one suite (in a worker process; resumable)."""
    from sane import api
    from sane.llm import LLMSettings
    from sane.pipeline.run_config import run_config
    from sane.suites.store import SuiteStore

    out, criterion, panel = Path(job["out"]), job["criterion"], job["panel"]
    accuracy, correlation, seed = job["accuracy"], job["correlation"], job["seed"]
    difficulty = job.get("difficulty", 0.0)
    hardness = f"-d{difficulty:g}" if difficulty else ""
    name = f"{panel}-a{accuracy:g}-c{correlation:g}{hardness}-s{seed}"
    done = out / "cells" / criterion / f"{name}.json"
    if done.is_file():
        return SweepCell.model_validate_json(done.read_text())
    done.parent.mkdir(parents=True, exist_ok=True)
    suite = done.with_suffix(".db")
    spec = Path(job["spec"])
    oracle = oracle_string(criterion, accuracy, correlation, difficulty)
    settings = LLMSettings(cache_path=done.with_suffix(".cache.db"))
    started = time.perf_counter()
    config = run_config(
        model=job["model"] or oracle,
        oracle_models=[oracle],
        cases=CASES,
        seed=seed,
        generator=job["generator"],
        panel=panel,
    )
    api.generate(spec, suite=suite, config=config, llm=settings)
    api.execute(suite, llm=settings, trust_suite_code=True)  # the planted targets: our code
    report = api.report(suite)
    store = SuiteStore(suite, readonly=True)
    try:
        oracle_calls = sum(c.task.startswith("vote:") for c in store.calls())
        validated = {f.recipe_id for f in store.families() if f.validated}
    finally:
        store.close()
    right, wrong, unknown = _right_recipes(suite, spec, criterion)
    controls = report.validity.controls
    cell = SweepCell(
        criterion=criterion,
        panel=panel,
        accuracy=accuracy,
        correlation=correlation,
        difficulty=difficulty,
        seed=seed,
        validated_families=report.validity.validated_families,
        controls_wrong=controls.false_accept.wrong if controls else 0,
        controls_items=controls.false_accept.items if controls else 0,
        controls_failed=bool(controls and controls.failed),
        right_proposed=len(right),
        right_validated=len(right & validated),
        wrong_validated=len(wrong & validated),
        no_truth=len(unknown),
        oracle_calls=oracle_calls,
        wall_s=round(time.perf_counter() - started, 2),
        **measure(report, criterion),
    )
    done.write_text(cell.model_dump_json(indent=2))
    return cell


def false_fault_rate(cell: SweepCell) -> float:
    return cell.reference_faults / cell.reference_cases if cell.reference_cases else 0.0


def summarise(cells: list[SweepCell]) -> dict:
    """One PANEL/accuracy/correlation[/dDIFFICULTY] entry, pooled over seeds and criteria."""
    return {
        "suites": len(cells),
        **pooled(cells),
        "controls_failed": ratio(sum(c.controls_failed for c in cells), len(cells)),
        "right_recipe_recall": ratio(
            sum(c.right_validated for c in cells), sum(c.right_proposed for c in cells)
        ),
        "wrong_recipes_validated": sum(c.wrong_validated for c in cells),
        "no_truth_recipes": sum(c.no_truth for c in cells),
    }


def meets(entry: dict) -> bool:
    """Every target met (a missing figure meets none)."""
    for key, (sign, bound) in TARGETS.items():
        value = entry.get(key)
        if value is None or (value > bound if sign == "<=" else value < bound):
            return False
    return True


def thresholds(
    table: dict,
    panels: list[str],
    accuracies: list[float],
    correlation: float,
    difficulty: float = 0.0,
):
    """Per panel, the lowest accuracy from which on every swept accuracy meets the targets."""
    found: dict[str, float | None] = {}
    for panel in panels:
        lowest = None
        for accuracy in sorted(accuracies, reverse=True):
            entry = table.get(table_key(panel, accuracy, correlation, difficulty))
            if entry is None or not meets(entry):
                break
            lowest = accuracy
        found[panel] = lowest
    return found


def failing_below(
    found: dict[str, float | None], accuracies: list[float]
) -> dict[str, float | None]:
    """Per panel, the highest swept accuracy below its threshold (where the targets failed);
    None when the threshold is the lowest accuracy swept or there is none."""
    below: dict[str, float | None] = {}
    for panel, threshold in found.items():
        lower = [a for a in accuracies if threshold is not None and a < threshold]
        below[panel] = max(lower) if lower else None
    return below


def checks(cells: list[SweepCell]) -> dict:
    """The sweep's own checks: a perfect oracle is exact, and the controls catch bad suites."""
    perfect = [c for c in cells if c.accuracy == 1.0]
    wrong_at_perfect = [
        f"{c.criterion}/{c.panel}/c{c.correlation:g}"
        + (f"/d{c.difficulty:g}" if c.difficulty else "")
        + f"/s{c.seed}"
        for c in perfect
        if c.reference_faults or c.controls_wrong
    ]
    bad = [c for c in cells if false_fault_rate(c) > BAD_SUITE_FALSE_FAULTS]
    passed = [c for c in bad if not c.controls_failed]
    return {
        "perfect_oracle_suites": len(perfect),
        "perfect_oracle_inexact": wrong_at_perfect,
        "bad_suites": len(bad),
        "bad_suites_with_passing_controls": len(passed),
        "bad_suites_passing_share": ratio(len(passed), len(bad)),
    }


def main(argv: list[str] | None = None) -> dict:
    from sane.panel.kinds import PANEL_KINDS
    from sane.records import RunConfig

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("out/bench-validity/oracle-sweep"))
    parser.add_argument("--criteria", nargs="+", default=list(refs.REFERENCES))
    parser.add_argument("--panels", nargs="+", default=list(PANEL_KINDS))
    parser.add_argument("--accuracies", nargs="+", type=float, default=list(ACCURACIES))
    parser.add_argument("--correlations", nargs="+", type=float, default=list(CORRELATIONS))
    parser.add_argument(
        "--difficulties",
        nargs="+",
        type=float,
        default=list(DIFFICULTIES),
        help="the oracle's item-level error (sim difficulty; 0: every question equally hard)",
    )
    parser.add_argument("--seeds", type=int, default=3, help="seeds 0..N-1 per setting")
    parser.add_argument(
        "--proposer",
        choices=("operators", "derived"),
        default="operators",
        help="operators: the operator grid (no LLM); derived: the derived agent (--model)",
    )
    parser.add_argument("--model", help="the agent model for --proposer derived")
    parser.add_argument("--plot", type=Path, help="write the curve as an SVG file here")
    parser.add_argument(
        "--write-thresholds",
        action="store_true",
        help="store the thresholds for `sane qualify` (sane/qualification/thresholds.json)",
    )
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (1: in this one)"
    )
    args = parser.parse_args(argv)
    if args.proposer == "derived" and not args.model:
        parser.error("--proposer derived needs --model (the agent that writes the recipes)")

    out = args.out if args.proposer == "operators" else args.out / "derived"
    specs = {criterion: sweep_spec(out, criterion) for criterion in args.criteria}
    jobs = [
        {
            "out": str(out),
            "criterion": criterion,
            "spec": str(specs[criterion]),
            "panel": panel,
            "accuracy": accuracy,
            "correlation": correlation,
            "difficulty": difficulty,
            "seed": seed,
            "generator": args.proposer,
            "model": args.model,
        }
        for panel in args.panels
        for accuracy in args.accuracies
        for correlation in args.correlations
        for difficulty in args.difficulties
        for seed in range(args.seeds)
        for criterion in args.criteria
    ]
    started = time.perf_counter()
    cells: list[SweepCell] = []
    with ProcessPoolExecutor(max_workers=args.jobs) if args.jobs > 1 else nullcontext() as pool:
        for cell in (pool.map if pool is not None else map)(run_cell, jobs):
            cells.append(cell)
            print(
                f"SIMULATED {cell.panel:11} a={cell.accuracy:<4g} c={cell.correlation:<3g} "
                f"d={cell.difficulty:<3g} "
                f"s={cell.seed} {cell.criterion:16} validated={cell.validated_families} "
                f"ref_faults={cell.reference_faults}/{cell.reference_cases} "
                f"right={cell.right_validated}/{cell.right_proposed} "
                f"wrong_validated={cell.wrong_validated} "
                f"controls={cell.controls_wrong}/{cell.controls_items}"
                f"{' FAILED' if cell.controls_failed else ''} {cell.wall_s}s",
                file=sys.stderr,
                flush=True,
            )
    groups: dict[str, list[SweepCell]] = {}
    for cell in cells:
        key = table_key(cell.panel, cell.accuracy, cell.correlation, cell.difficulty)
        groups.setdefault(key, []).append(cell)
    table = {key: summarise(group) for key, group in groups.items()}
    columns = [c for c in next(iter(table.values())) if c != "suites"]
    print("Simulated oracles (sane.simulation): these figures measure the method, not a model.")
    print("| panel/accuracy/correlation[/difficulty] | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for key, entry in table.items():
        print(
            f"| {key} | "
            + " | ".join("-" if entry[c] is None else str(entry[c]) for c in columns)
            + " |"
        )
    by_correlation = {
        setting(correlation, difficulty): thresholds(
            table, args.panels, args.accuracies, correlation, difficulty
        )
        for correlation in args.correlations
        for difficulty in args.difficulties
    }
    result = {
        **table,
        "simulated": True,
        "default_panel": RunConfig.model_fields["panel"].default,
        "threshold": by_correlation.get(f"{HEADLINE_CORRELATION:g}", {}),
        "failing_below": failing_below(
            by_correlation.get(f"{HEADLINE_CORRELATION:g}", {}), args.accuracies
        ),
        "threshold_by_correlation": by_correlation,
        "targets": {key: f"{sign} {bound}" for key, (sign, bound) in TARGETS.items()},
        "checks": checks(cells),
        "proposer": args.proposer,
        "seeds": args.seeds,
        "wall_s": round(time.perf_counter() - started, 1),
    }
    if args.write_thresholds:
        write_thresholds(result, argv)
    if args.plot is not None:
        args.plot.write_text(plot_svg(table, args.panels, args.accuracies), encoding="utf-8")
    print(json.dumps(result))
    return result


PLOTTED = (  # figure, its target, the y range
    ("reference_false_fault_rate", 0.05, 0.2),
    ("control_false_accept", 0.10, 0.4),
    ("right_recipe_recall", 0.8, 1.0),
)
PANEL_STYLE = {
    "contrastive": ("#1b6ca8", ""),
    "plain": ("#d1495b", "6 3"),
    "blind": ("#2a9d3f", "2 3"),
}


def plot_svg(table: dict, panels: list[str], accuracies: list[float]) -> str:
    """The curve as a small SVG (no plotting dependency): per figure, one line per panel
    against oracle accuracy at correlation 0.2, with the target as a grey line."""
    width, height, pad = 250, 190, 36
    xs = sorted(accuracies)

    def x(a: float) -> float:
        return pad + (a - xs[0]) / ((xs[-1] - xs[0]) or 1) * (width - pad - 10)

    parts = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width * len(PLOTTED)}" '
            f'height="{height + 30}" font-family="sans-serif" font-size="10">'
        ),
        (
            f'<text x="4" y="{height + 24}">SIMULATED oracles (correlation 0.2): the method, not a '
            "model. x: oracle accuracy</text>"
        ),
    ]
    for col, (figure, target, top) in enumerate(PLOTTED):
        left = col * width

        def y(v: float, top: float = top) -> float:
            return height - 20 - min(v, top) / top * (height - 40)

        parts.append(f'<g transform="translate({left},0)">')
        parts.append(f'<text x="{pad}" y="12" font-weight="bold">{figure}</text>')
        parts.append(
            f'<line x1="{pad}" y1="{y(0)}" x2="{width - 10}" y2="{y(0)}" stroke="black"/>'
            f'<line x1="{pad}" y1="{y(0)}" x2="{pad}" y2="{y(top)}" stroke="black"/>'
            f'<line x1="{pad}" y1="{y(target):.1f}" x2="{width - 10}" y2="{y(target):.1f}" '
            'stroke="#999" stroke-dasharray="3 3"/>'
        )
        for value in (0, top / 2, top):
            parts.append(
                f'<text x="{pad - 4}" y="{y(value) + 3:.1f}" text-anchor="end">{value:g}</text>'
            )
        for a in xs:
            parts.append(f'<text x="{x(a):.1f}" y="{height - 6}" text-anchor="middle">{a:g}</text>')
        for panel in panels:
            points = [
                (x(a), y(value))
                for a in xs
                if (value := table.get(f"{panel}/{a:g}/0.2", {}).get(figure)) is not None
            ]
            color, dash = PANEL_STYLE.get(panel, ("#555", ""))
            path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
            parts.append(
                f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="1.5" '
                f'stroke-dasharray="{dash}"/>'
            )
        if col == 0:
            for row, panel in enumerate(panels):
                color, dash = PANEL_STYLE.get(panel, ("#555", ""))
                yy = 28 + row * 12
                parts.append(
                    f'<line x1="{width - 90}" y1="{yy}" x2="{width - 70}" y2="{yy}" '
                    f'stroke="{color}" stroke-width="1.5" stroke-dasharray="{dash}"/>'
                    f'<text x="{width - 66}" y="{yy + 3}">{panel}</text>'
                )
        parts.append("</g>")
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def write_thresholds(result: dict, argv: list[str] | None) -> None:
    """The accuracy each panel needs, where `sane qualify` reads it (with how it was measured)."""
    from sane.qualification.qualify import THRESHOLDS

    command = " ".join(["benchmarks/bench_validity.py --oracle-sweep", *(argv or sys.argv[1:])])
    source = (
        f"simulated-oracle sweep, correlation {HEADLINE_CORRELATION:g}, {result['seeds']} seeds, "
        f"{result['proposer']} proposer: {command.replace(' --write-thresholds', '')}"
    )
    THRESHOLDS.write_text(
        json.dumps(
            {
                "threshold": result["threshold"],
                "failing_below": result["failing_below"],
                "targets": result["targets"],
                "source": source,
            },
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )


if __name__ == "__main__":
    main()
