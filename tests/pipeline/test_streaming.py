"""Recipes flow through the stages on their own: none waits for another recipe's panel.

One recipe's alignment votes are slowed to a second; the other recipes' cases are
written and judged meanwhile. With a stage barrier (every alignment before any
case), every alignment call would be stored before the first case call.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from tiny_suite import generate_tiny

from sane.llm import LLMSettings
from sane.suites.store import SuiteStore

SLOW_RECIPE = "Recipe id: rec-2-2"


def test_a_slow_alignment_does_not_hold_back_other_recipes_cases(
    workdir: Path, settings: LLMSettings
) -> None:
    script = workdir / "tiny_script.yaml"
    rules = yaml.safe_load(script.read_text())
    slowed = 0
    for rule in rules["rules"]:
        if rule.get("task") == "vote:alignment" and rule.get("contains") == SLOW_RECIPE:
            rule["delay_s"] = 1.0
            slowed += 1
    assert slowed == 3  # the fixture's three votes on that recipe
    script.write_text(yaml.safe_dump(rules))

    generate_tiny(workdir, settings)

    store = SuiteStore(workdir / "suite.db")
    tasks = [call.task for call in store.calls()]
    store.close()
    last_alignment = max(i for i, task in enumerate(tasks) if task == "vote:alignment")
    first_case = tasks.index("cases")
    assert first_case < last_alignment, tasks


def test_planted_controls_are_asked_inside_the_flows_not_after_them(
    workdir: Path, settings: LLMSettings
) -> None:
    """A family's controls (a faithful edit at once, a no-op and a decoy copy of its first
    usable case) are asked while another recipe is still being aligned; with a controls
    barrier after the flows, every control vote would be stored after every alignment."""
    import sqlite3

    script = workdir / "tiny_script.yaml"
    rules = yaml.safe_load(script.read_text())
    for rule in rules["rules"]:
        if rule.get("task") == "vote:alignment" and rule.get("contains") == SLOW_RECIPE:
            rule["delay_s"] = 1.0
    script.write_text(yaml.safe_dump(rules))

    generate_tiny(workdir, settings)

    with sqlite3.connect(workdir / "suite.db") as db:
        rows = db.execute("select rowid, subject_id, question from decisions").fetchall()
    slow = SLOW_RECIPE.removeprefix("Recipe id: ")
    slow_aligned = max(r for r, subject, q in rows if subject == slow and q == "alignment")
    first: dict[str, int] = {}  # control kind -> its first decision's row
    for row, subject, _ in sorted(rows):
        if subject.startswith("control:"):
            first.setdefault(subject.split(":")[1], row)
    assert {"faithful", "noop", "decoy"} <= set(first), first
    assert first["faithful"] < slow_aligned
    assert first["noop"] < slow_aligned  # a family's copies too, not only the edits


def test_every_graph_node_is_named_by_the_stage_it_completes() -> None:
    """Nodes, done-marks, error records and progress share one enumeration."""
    from sane.pipeline.workflow import GRAPHS
    from sane.records import Stage

    for mode, build in GRAPHS.items():
        nodes = set(build().nodes)
        assert nodes and nodes <= set(Stage), (mode, nodes - set(Stage))
    assert set(GRAPHS["generate"]().nodes) == {
        Stage.capabilities,
        Stage.recipes,
        Stage.cases,
        Stage.case_panel,
        Stage.controls,
        Stage.families,
    }


def test_a_run_freezes_the_startup_heap_and_gives_it_back(
    workdir: Path, settings: LLMSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The collector skips the objects that existed when the run started while it runs
    (a full pass over them stalled every call in flight), and gets them back at the end,
    also when the run fails, so a long-lived process keeps no garbage for good."""
    import gc

    from sane.pipeline import generate

    seen: list[int] = []
    select_families = generate.select_families

    async def watching(ctx: object) -> None:
        seen.append(gc.get_freeze_count())
        await select_families(ctx)  # type: ignore[arg-type]

    monkeypatch.setattr(generate, "select_families", watching)
    assert gc.get_freeze_count() == 0
    generate_tiny(workdir, settings)
    assert seen and seen[0] > 0
    assert gc.get_freeze_count() == 0

    async def failing(ctx: object) -> None:
        raise RuntimeError("a bug in a stage")

    monkeypatch.setattr(generate, "select_families", failing)
    with pytest.raises(RuntimeError, match="a bug in a stage"):
        generate_tiny(workdir, settings, suite=workdir / "second.db")
    assert gc.get_freeze_count() == 0
