"""Shared by the simulation tests: the validity benchmark's exact references, a suite's
spec and examples over them, and a simulated oracle string."""

from __future__ import annotations

import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
if str(BENCHMARKS) not in sys.path:
    sys.path.insert(0, str(BENCHMARKS))

import bench_validity
import oracle_sweep
import reference_scorers as refs


def sweep_spec(out: Path, criterion: str = "number_fidelity") -> Path:
    """The criterion's sweep spec (its reference and mutants as targets) under `out`."""
    return oracle_sweep.sweep_spec(out, criterion)


def oracle(criterion: str = "number_fidelity", **skill: float) -> str:
    fields = ",".join(f"{name}={value:g}" for name, value in skill.items())
    return f"sim/{fields + ',' if fields else ''}truth={refs.ref(criterion, 'reference')}"


__all__ = ["BENCHMARKS", "bench_validity", "oracle", "oracle_sweep", "refs", "sweep_spec"]
