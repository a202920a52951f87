"""The comparison agrees with each suite's own report, and the command prints and stores it."""

from __future__ import annotations

import json
import math
import shlex
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import sane
from sane.analyses.baseline import run_baseline, suite_file
from sane.analyses.generator_comparison import Comparison, compare_generators, render_comparison
from sane.cli import app
from sane.errors import InputError
from sane.llm import LLMSettings
from sane.records import ExecuteConfig

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent / "fixtures"
GENERATORS = ["fixed:jrh", "fixed:scoring-rules"]


def _baseline(
    workdir: Path, settings: LLMSettings, execute: bool = True, suites: str = "suites"
) -> Comparison:
    return run_baseline(
        workdir / "tiny_spec.yaml",
        suite_dir=workdir / suites,
        model="scripted",
        generators=GENERATORS,
        votes=3,
        cases=3,
        max_capabilities=2,
        recipes_per_capability=1,
        execute=execute,
        execution=ExecuteConfig(targets=["careful", "lazy"], timeout_s=5),
        llm=settings,
    )


def _ratio(a: int, b: int) -> float | None:
    return a / b if b else None


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, LLMSettings]]:
    """One working directory for the read-only tests of this module (the runs are slow-ish)."""
    directory = tmp_path_factory.mktemp("baseline")
    for source in (FIXTURES / "tiny_spec.yaml", FIXTURES / "tiny_examples.jsonl"):
        shutil.copy(source, directory / source.name)
    shutil.copy(HERE / "baseline_script.yaml", directory / "script.yaml")
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(FIXTURES))
        sys.modules.pop("fixture_targets", None)
        yield (
            directory,
            LLMSettings(
                cache_path=directory / "cache.db",
                script_path=directory / "script.yaml",
                backoff_s=0,
            ),
        )


@pytest.fixture(scope="module")
def executed(shared: tuple[Path, LLMSettings]) -> Comparison:
    return _baseline(*shared)


@pytest.fixture(scope="module")
def generated(shared: tuple[Path, LLMSettings]) -> Comparison:
    return _baseline(*shared, execute=False, suites="generated")


def test_figures_match_each_suites_report(
    shared: tuple[Path, LLMSettings], executed: Comparison
) -> None:
    comparison = executed
    assert [c.generator for c in comparison.columns] == ["derived", *GENERATORS]
    assert comparison.scorer == "tiny-faithfulness" and comparison.examples == 3
    for column in comparison.columns:
        assert Path(column.suite) == suite_file(shared[0] / "suites", column.generator)
        report = sane.report(column.suite)
        v = report.validity
        assert report.suite.generator == column.generator
        assert (
            column.candidate_recipes,
            column.aligned_recipes,
            column.validated_families,
            column.cases,
            column.realized_cases,
            column.applicable_cases,
            column.joint_valid_cases,
            column.fault_detecting_families,
            column.tau,
        ) == (
            v.candidate_recipes,
            v.aligned_recipes,
            v.validated_families,
            v.cases,
            v.realized_cases,
            v.applicable_cases,
            v.joint_valid_cases,
            v.fault_detecting_families,
            v.tau,
        )
        assert column.fault_detecting_by_target == {
            name: t.fault_detecting_families for name, t in report.targets.items()
        }
        assert column.pass_rate_by_target == {n: t.pass_rate for n, t in report.targets.items()}
        assert set(column.fault_detecting_by_target) == {"careful", "lazy"}
        assert column.threshold_sensitivity == report.threshold_sensitivity
        rates = column.rates
        assert rates.joint_valid == _ratio(v.joint_valid_cases, v.candidate_recipes * 3)
        assert rates.alignment == _ratio(v.aligned_recipes, v.candidate_recipes)
        assert rates.realization == _ratio(v.realized_cases, v.cases)
        assert rates.applicability == _ratio(v.applicable_cases, v.realized_cases)
        assert rates.validated == _ratio(v.validated_families, v.candidate_recipes)
        assert sum(column.validated_by_requirement.values()) == v.validated_families
        assert column.unique_aligned_recipes <= column.aligned_recipes
    assert comparison.differences == []
    derived = comparison.columns[0]
    for other in comparison.columns[1:]:
        assert comparison.validated_ratio[other.generator] == _ratio(
            derived.validated_families, other.validated_families
        )


def test_decomposition_multiplies_out_when_every_case_was_generated(
    generated: Comparison,
) -> None:
    comparison = generated
    for column in comparison.columns:
        if column.cases == column.aligned_recipes * column.cases_per_recipe:
            r = column.rates
            assert math.isclose(r.alignment * r.realization * r.applicability, r.joint_valid)
        assert column.executed is False and column.fault_detecting_by_target == {}


def test_hand_counted_figures(generated: Comparison) -> None:
    """From baseline_script.yaml: JRH 8 candidates, label flip misaligned; every derived
    rec-1-1 case is inapplicable, so that family fails."""
    derived, jrh, _ = generated.columns
    assert (derived.candidate_recipes, derived.aligned_recipes) == (2, 2)
    assert derived.validated_families == 1
    assert (jrh.candidate_recipes, jrh.aligned_recipes, jrh.validated_families) == (8, 7, 7)
    assert jrh.unique_aligned_recipes == 7
    assert jrh.validated_by_requirement == {"repeatability": 1, "robustness": 6}


def test_rerun_reuses_the_suites(shared: tuple[Path, LLMSettings], executed: Comparison) -> None:
    first = executed
    again = _baseline(*shared)
    assert again == first
    assert compare_generators([c.suite for c in first.columns]) == first


def test_suites_for_different_examples_are_not_compared(
    workdir: Path, settings: LLMSettings, generated: Comparison
) -> None:
    comparison = generated
    other = workdir / "other.jsonl"
    other.write_text(
        (workdir / "tiny_examples.jsonl").read_text().splitlines()[0] + "\n", encoding="utf-8"
    )
    sane.generate(
        workdir / "tiny_spec.yaml",
        suite=workdir / "other.db",
        model="scripted",
        examples=other,
        cases=3,
        max_capabilities=2,
        recipes_per_capability=1,
        llm=settings,
    )
    with pytest.raises(InputError, match="different spec or example set"):
        compare_generators([comparison.columns[0].suite, workdir / "other.db"])


def test_markdown_is_one_table(executed: Comparison) -> None:
    text = render_comparison(executed)
    table = [line for line in text.splitlines() if line.startswith("|")]
    assert table[0].split("|")[2:5] == [" derived ", " fixed:jrh ", " fixed:scoring-rules "]
    # contiguous rows: a blank line inside would split the markdown table
    first, last = text.splitlines().index(table[0]), text.splitlines().index(table[-1])
    assert last - first + 1 == len(table)
    assert any(line.startswith("| fault-detecting families: careful |") for line in table)
    assert all(line.count("|") == 5 for line in table)


def test_cli_baseline_prints_json_and_keeps_it(workdir: Path) -> None:
    result = CliRunner().invoke(
        app,
        [
            "baseline",
            str(workdir / "tiny_spec.yaml"),
            *f"--model scripted --suite-dir {workdir / 'suites'} --generator fixed:jrh".split(),
            *f"--script {workdir / 'script.yaml'} --cache {workdir / 'cache.db'}".split(),
            *shlex.split("--cases 3 --capabilities 2 --recipes 1 --target careful --timeout 5"),
            *shlex.split("--format json --quiet"),
        ],
    )
    assert result.exit_code == 0, result.stderr
    printed = json.loads(result.stdout)
    stored = json.loads((workdir / "suites" / "comparison.json").read_text())
    assert printed == stored
    assert [c["generator"] for c in printed["columns"]] == ["derived", "fixed:jrh"]
    assert printed == json.loads(
        compare_generators([c["suite"] for c in printed["columns"]]).model_dump_json()
    )


def test_cli_generate_with_a_fixed_set_and_a_bad_one(workdir: Path) -> None:
    common = [
        *f"--model scripted --script {workdir / 'script.yaml'}".split(),
        *f"--cache {workdir / 'cache.db'} --cases 3 --quiet".split(),
    ]
    spec = str(workdir / "tiny_spec.yaml")
    ok = CliRunner().invoke(
        app,
        ["generate", spec, "--suite", str(workdir / "a.db"), "--generator", "fixed:jrh", *common],
    )
    assert ok.exit_code == 0, ok.stderr
    assert "8 candidate recipes" in " ".join(ok.stderr.split())
    bad = CliRunner().invoke(
        app, ["generate", spec, "--suite", str(workdir / "b.db"), "--generator", "fixed:x", *common]
    )
    assert bad.exit_code == 2
    assert "unknown fixed set 'x'" in bad.stderr


def test_cli_lists_generators() -> None:
    result = CliRunner().invoke(app, ["generators"])
    assert result.exit_code == 0
    listed = result.stdout.split()
    # other kinds may register themselves too; the shipped ones are all listed
    assert listed[0] == "derived"
    assert {"fixed:behavioral", "fixed:jrh", "fixed:scoring-rules"} <= set(listed)


def test_different_settings_are_flagged(
    workdir: Path, settings: LLMSettings, generated: Comparison
) -> None:
    sane.generate(
        Path(generated.columns[0].suite).parent.parent / "tiny_spec.yaml",  # same spec file
        suite=workdir / "votes1.db",
        model="scripted",
        votes=1,
        cases=3,
        max_capabilities=2,
        recipes_per_capability=1,
        llm=settings,
    )
    comparison = compare_generators([generated.columns[0].suite, workdir / "votes1.db"])
    assert comparison.differences == ["votes: 3, 1"]
    assert "votes: 3, 1" in render_comparison(comparison)
