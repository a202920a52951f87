"""Scorer faults end to end: each broken target yields error records, counted in the report.

The tiny scripted suite has one validated family with 3 joint-valid cases; every
faulty target misbehaves on each case's perturbed variant.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from tiny_suite import generate_tiny

import sane
from sane.llm import LLMSettings

FAULTS = {
    "raises": "raised RuntimeError: scorer crashed",
    "hangs": "timed out after 2s",
    "returns_nan": "non-finite",
    "returns_inf": "non-finite",
    "returns_string": "non-number '2'",
    "out_of_range": "outside its contract [1, 5]",
}


def test_scorer_faults_are_counted_errors(tiny: Path) -> None:
    spec = yaml.safe_load((tiny / "tiny_spec.yaml").read_text())
    spec["targets"] = [{"name": "careful", "kind": "python", "ref": "fixture_targets:careful"}] + [
        {"name": name, "kind": "python", "ref": f"faulty_targets:{name}", "deterministic": True}
        for name in FAULTS
    ]
    (tiny / "faulty.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    settings = LLMSettings(
        cache_path=tiny / "cache.db", script_path=tiny / "tiny_script.yaml", backoff_s=0.0
    )
    suite = tiny / "suite.db"
    generate_tiny(tiny, settings, spec="faulty.yaml", suite=suite)
    # A timeout with room: the sound target's calls share the interpreter with the others'
    # threads (and, under xdist, a worker that has loaded an embedded model), so a 0.3 s
    # bar once timed out "careful" too (1 of 3 passes, in a full run).
    records = sane.execute(suite, llm=settings, timeout_s=2.0, trust_suite_code=True)
    report = sane.report(suite).model_dump(mode="json")

    assert report["targets"]["careful"]["passes"] == 3  # the suite itself is sound
    for name, cause in FAULTS.items():
        summary = report["targets"][name]
        assert (summary["cases_run"], summary["errors"]) == (3, 3), name
        assert (summary["passes"], summary["faults"], summary["pass_rate"]) == (0, 0, None), name
        assert report["errors"]["by_target"][name] == 3
        mine = [r for r in records if r.target == name]
        assert len(mine) == 3
        assert all(r.verdict.value == "error" and cause in (r.error or "") for r in mine), [
            r.error for r in mine
        ]
        assert all(r.scores == {} for r in mine)  # no partial score is kept as a result
    assert all(f["target"] == "careful" for f in report["faults"]) or not report["faults"]
    assert [e["target"] for e in report["ranking"] if e["rank"] is not None] == ["careful"]
