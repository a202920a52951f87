"""Validity benchmark: is a generated suite's verdict right? Measured on exact ground truth.

Why: a suite's faults are evidence about a judge only when its tests are valid.
No human label is needed to check that here. Each criterion in
``sane/qualification/criteria/`` is exactly computable, and its text states the rule
word for word. ``reference_scorers.py`` computes it, so a valid test can never
fault that reference: each of its faults is an invalid test that got through.
Beside each reference run its planted-defect mutants (constant, inverted, reads
only the first sentence, rewards length, penalises formatting, two
criterion-specific bugs) and a noise ladder (amplitude 0.1, 0.2, 0.3, 0.5). A
useful suite faults the mutants on families the reference passes, and its pass
rate falls as the noise grows.

For every generator (derived, fixed sets) and panel (contrastive, plain, blind) the
benchmark generates one suite per criterion with the same models and budget,
executes the reference and its mutants, and prints, per ``GENERATOR/PANEL``:

  validated_families                  families that passed the panel (all criteria)
  reference_false_fault_rate          reference faults / reference cases run
  mutation_score                      mutants faulted on a family the reference passes / mutants
  ladder_spearman                     Spearman of pass rate against the ladder (reference = intact
                                      end, noise 0.5 = broken end; 1.0 = pass rate falls step by step)
  control_false_accept                the panel's yes on planted known-wrong items / items
  control_order_inconsistent          blind panel: direction votes whose answer changed when the
                                      two texts' roles were exchanged / such votes
  oracle_calls_per_validated_family   panel calls (cached or not) / validated families
  wall_s                              generation + execution wall time; a cell's agent calls
                                      may be served by the shared cache if another panel ran first

All suites, the LLM cache and each finished cell's figures live under --out, so
a run that stops resumes where it was. The last line is one JSON object keyed
"GENERATOR/PANEL", plus "default": the entry that `sane generate` uses by default.

    .venv/bin/python benchmarks/bench_validity.py --quick     (embedded Qwen; derived x 3 panels,
                                                              fixed:jrh contrastive; see docs)
    .venv/bin/python benchmarks/bench_validity.py             (4 capabilities x 2 recipes, 5 cases,
                                                              all fixed sets; hours, resumable)
    ... --model M --oracle-model O [--oracle-model O2]     (the models you have)
    .venv/bin/python benchmarks/bench_validity.py --oracle-sweep   (the validity curve on
                                                              simulated oracles: oracle_sweep.py)
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import reference_scorers as refs
import yaml
from pydantic import BaseModel
from scipy.stats import spearmanr

from sane import api
from sane.analyses.baseline import suite_file
from sane.llm import LLMSettings
from sane.panel.kinds import PANEL_KINDS
from sane.pipeline.run_config import run_config
from sane.records import RunConfig
from sane.reporting import Report, TargetSummary
from sane.suites.store import SuiteStore

CRITERIA = tuple(refs.REFERENCES)
MODEL = "local/qwen2.5-coder-1.5b"


class Plan(BaseModel):
    generators: list[str]
    panels: list[str]
    fixed_panels: list[str] | None = None  # the fixed sets' panels; None: the same as derived
    capabilities: int
    recipes_per_capability: int
    cases: int
    votes: int = 3

    def entries(self) -> list[tuple[str, str]]:
        """(generator, panel) in run order: derived first, each generator's panels in turn."""
        return [
            (generator, panel)
            for generator in self.generators
            for panel in (
                self.panels
                if generator == "derived" or self.fixed_panels is None
                else self.fixed_panels
            )
        ]


# The quick run measures every panel on the derived generator and fixed:jrh with the default
# panel: on two cores a fixed set's five model-written recipes cost about 20 minutes per
# criterion and panel, so its other panels are left to the full run.
QUICK = Plan(
    generators=["derived", "fixed:jrh"],
    panels=list(PANEL_KINDS),
    fixed_panels=["contrastive"],
    capabilities=2,
    recipes_per_capability=1,
    cases=3,
)
FULL = Plan(
    generators=["derived", "fixed:jrh", "fixed:behavioral", "fixed:scoring-rules"],
    panels=list(PANEL_KINDS),
    capabilities=4,
    recipes_per_capability=2,
    cases=5,
)


class Cell(BaseModel):
    """One suite (criterion x generator x panel): the raw counts behind the metrics."""

    criterion: str
    generator: str
    panel: str
    validated_families: int
    reference_cases: int
    reference_faults: int
    killed: dict[str, bool]  # mutant -> faulted on a family the reference passes
    ladder: dict[str, tuple[int, int]]  # ladder step -> (passes, cases run)
    controls_wrong: int
    controls_items: int
    order_votes: int = 0  # order-checked direction votes (blind panel)
    order_inconsistent: int = 0  # ...whose answer changed with the order of the texts
    oracle_calls: int
    wall_s: float
    guards: dict[str, int]


def write_spec(out: Path, criterion: str, examples: Path | None = None) -> Path:
    """The criterion's spec with the reference and every mutant declared as python targets
    (and with `examples` instead of its own examples file, when given)."""
    source = refs.REFERENCES[criterion].spec
    spec = yaml.safe_load(source.read_text(encoding="utf-8"))
    spec["examples"] = str((examples or source.parent / spec["examples"]).resolve())
    spec["targets"] = [
        {"name": name, "kind": "python", "ref": refs.ref(criterion, name)}
        for name in refs.scorers(criterion)
    ]
    path = out / "specs" / f"{criterion}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return path


def measure(report: Report, criterion: str) -> dict:
    """Reference faults, killed mutants and ladder pass rates, read from the suite's report.

    A suite with no validated family executes nothing: its report has no targets, and
    every count is zero (no mutant killed, no reference case run)."""
    targets = report.targets
    empty = TargetSummary()

    def faults(name: str, family: str) -> int:
        summary = targets.get(name, empty).by_family.get(family)
        return 0 if summary is None else summary.faults

    reference = targets.get("reference", empty)
    clean = [f for f, s in reference.by_family.items() if s.cases > 0 and s.faults == 0]
    ladder = {}
    for amplitude in refs.NOISE_LADDER:
        step = targets.get(refs.ladder_name(amplitude), empty)
        ladder[refs.ladder_name(amplitude)] = (step.passes, step.passes + step.faults)
    return {
        "reference_cases": reference.passes + reference.faults,
        "reference_faults": reference.faults,
        "killed": {
            name: any(faults(name, f) > 0 for f in clean) for name in refs.mutants(criterion)
        },
        "ladder": ladder,
    }


def run_cell(
    out: Path, criterion: str, generator: str, panel: str, plan: Plan, args, settings
) -> Cell:
    done = out / "cells" / criterion / f"{suite_file(Path(), generator).stem}-{panel}.json"
    if done.is_file():
        return Cell.model_validate_json(done.read_text())
    suite = done.with_suffix(".db")
    suite.parent.mkdir(parents=True, exist_ok=True)
    spec = write_spec(out, criterion)
    started = time.perf_counter()
    config = run_config(
        model=args.model,
        oracle_models=args.oracle_model or None,
        votes=plan.votes,
        cases=plan.cases,
        seed=args.seed,
        max_capabilities=plan.capabilities,
        recipes_per_capability=plan.recipes_per_capability,
        generator=generator,
        panel=panel,
    )
    api.generate(spec, suite=suite, config=config, llm=settings)
    api.execute(suite, llm=settings, trust_suite_code=True)  # the planted targets: our code
    report = api.report(suite)
    wall = time.perf_counter() - started
    store = SuiteStore(suite, readonly=True)
    try:
        oracle_calls = sum(c.task.startswith("vote:") for c in store.calls())
    finally:
        store.close()
    controls = report.validity.controls
    cell = Cell(
        criterion=criterion,
        generator=generator,
        panel=panel,
        validated_families=report.validity.validated_families,
        controls_wrong=controls.false_accept.wrong if controls else 0,
        controls_items=controls.false_accept.items if controls else 0,
        order_votes=controls.order_inconsistent.items if controls else 0,
        order_inconsistent=controls.order_inconsistent.wrong if controls else 0,
        oracle_calls=oracle_calls,
        wall_s=round(wall, 1),
        guards=report.validity.guards,
        **measure(report, criterion),
    )
    done.write_text(cell.model_dump_json(indent=2))
    return cell


def ratio(num: float, den: float) -> float | None:
    return None if den == 0 else round(num / den, 3)


def pooled(cells: list) -> dict:
    """The figures every validity table gives, pooled over its cells (a Cell here, a sweep's
    SweepCell: both carry the counts read from a suite's report)."""
    ladder_rates = []
    for amplitude in refs.NOISE_LADDER:
        step = refs.ladder_name(amplitude)
        passes = sum(c.ladder[step][0] for c in cells)
        runs = sum(c.ladder[step][1] for c in cells)
        ladder_rates.append(None if runs == 0 else passes / runs)
    spearman = None
    if None not in ladder_rates and len(set(ladder_rates)) > 1:
        rho = spearmanr([-a for a in refs.NOISE_LADDER], ladder_rates).statistic
        spearman = None if math.isnan(rho) else round(float(rho), 3)
    validated = sum(c.validated_families for c in cells)
    mutants = [k for c in cells for k in c.killed.values()]
    return {
        "validated_families": validated,
        "reference_false_fault_rate": ratio(
            sum(c.reference_faults for c in cells), sum(c.reference_cases for c in cells)
        ),
        "mutation_score": ratio(sum(mutants), len(mutants)),
        "ladder_spearman": spearman,
        "control_false_accept": ratio(
            sum(c.controls_wrong for c in cells), sum(c.controls_items for c in cells)
        ),
        "oracle_calls_per_validated_family": ratio(sum(c.oracle_calls for c in cells), validated),
    }


def summarise(cells: list[Cell]) -> dict:
    """One GENERATOR/PANEL entry: the metrics pooled over the criteria."""
    return {
        **pooled(cells),
        "control_order_inconsistent": ratio(
            sum(c.order_inconsistent for c in cells), sum(c.order_votes for c in cells)
        ),
        "wall_s": round(sum(c.wall_s for c in cells), 1),
    }


def default_entry() -> str:
    """The generator and panel that `sane generate` uses when neither is given."""
    fields = RunConfig.model_fields
    return f"{fields['generator'].default}/{fields['panel'].default}"


def _fmt(value: object) -> str:
    return "-" if value is None else str(value)


def main(argv: list[str] | None = None) -> dict:
    argv = sys.argv[1:] if argv is None else argv
    if "--oracle-sweep" in argv:  # the validity curve, on simulated oracles (oracle_sweep.py)
        import oracle_sweep

        return oracle_sweep.main([a for a in argv if a != "--oracle-sweep"])
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="the smaller run (see the docstring)")
    parser.add_argument("--out", type=Path, default=Path("out/bench-validity"))
    parser.add_argument("--model", default=MODEL)
    parser.add_argument("--oracle-model", action="append", default=[])
    parser.add_argument("--criteria", nargs="+", default=list(CRITERIA), choices=CRITERIA)
    parser.add_argument("--generators", nargs="+", help="override the plan's generators")
    parser.add_argument("--panels", nargs="+", choices=list(PANEL_KINDS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--script", type=Path, help="scripted model's rules file (tests)")
    args = parser.parse_args(argv)

    plan = (QUICK if args.quick else FULL).model_copy()
    if args.generators:
        plan.generators = args.generators
    if args.panels:
        plan.panels, plan.fixed_panels = args.panels, None
    out = args.out / "quick" if args.quick else args.out
    out.mkdir(parents=True, exist_ok=True)
    settings = LLMSettings(cache_path=out / "llm-cache.db", script_path=args.script)

    cells: dict[str, list[Cell]] = {}
    for generator, panel in plan.entries():
        key = f"{generator}/{panel}"
        for criterion in args.criteria:
            cell = run_cell(out, criterion, generator, panel, plan, args, settings)
            cells.setdefault(key, []).append(cell)
            print(
                f"{key:28} {criterion:16} validated={cell.validated_families} "
                f"ref_faults={cell.reference_faults}/{cell.reference_cases} "
                f"killed={sum(cell.killed.values())}/{len(cell.killed)} "
                f"controls={cell.controls_wrong}/{cell.controls_items} "
                f"order_inconsistent={cell.order_inconsistent}/{cell.order_votes} "
                f"oracle_calls={cell.oracle_calls} wall={cell.wall_s}s",
                file=sys.stderr,
                flush=True,
            )
    result: dict = {key: summarise(group) for key, group in cells.items()}
    columns = list(next(iter(result.values())))
    print("| entry | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for key, entry in result.items():
        print(f"| {key} | " + " | ".join(_fmt(entry[c]) for c in columns) + " |")
    result["default"] = default_entry()
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
