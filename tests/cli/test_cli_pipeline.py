"""The command line end to end on the scripted model: commands, JSON contract, invariants."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sane.cli import app
from sane.panel.oracle import majority
from sane.records import Decision, Question
from sane.suites.store import SuiteStore

runner = CliRunner()


def _invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def suite(workdir: Path) -> Path:
    code, _, err = _invoke(
        "generate",
        str(workdir / "tiny_spec.yaml"),
        "--suite",
        str(workdir / "suite.db"),
        "--model",
        "scripted",
        "--script",
        str(workdir / "tiny_script.yaml"),
        "--cache",
        str(workdir / "cache.db"),
        "--cases",
        "4",
        "--capabilities",
        "2",
        "--recipes",
        "2",
        "--quiet",
    )
    assert code == 0, err
    code, _, err = _invoke(
        "execute",
        str(workdir / "suite.db"),
        "--spec",
        str(workdir / "tiny_spec.yaml"),
        "--script",
        str(workdir / "tiny_script.yaml"),
        "--cache",
        str(workdir / "cache.db"),
        "--quiet",
        "--timeout",
        "5",
    )
    # broken errors on every case: the run completes, and says that nothing was measured
    assert code == 4, err
    assert "target broken errored on every case" in err.strip().splitlines()[-1]
    return workdir / "suite.db"


def test_help_lists_the_commands() -> None:
    code, out, _ = _invoke("--help")
    assert code == 0
    for command in ("generate", "execute", "report", "rank"):
        assert command in out


def test_json_report_has_the_contract_keys_and_invariants(suite: Path) -> None:
    code, out, _ = _invoke("report", str(suite), "--format", "json")
    assert code == 0
    report = json.loads(out)
    assert {"scorer", "model", "created"} <= set(report["suite"])
    v = report["validity"]
    assert v["joint_valid_cases"] <= v["applicable_cases"] <= v["realized_cases"] <= v["cases"]
    assert v["validated_families"] <= v["aligned_recipes"] <= v["candidate_recipes"]
    for name, target in report["targets"].items():
        assert {
            "pass_rate",
            "cases_run",
            "faults",
            "fault_detecting_families",
            "by_requirement",
        } <= set(target), name
    assert [e["target"] for e in report["ranking"]][:2] == ["careful", "lazy"]
    assert report["ranking"][0]["rank"] == 1


def test_validated_families_hold_a_majority_in_the_stored_votes(suite: Path) -> None:
    """Recount from the raw votes, not from the stored decisions."""
    store = SuiteStore(suite)
    config = store.config()
    realization = store.decisions(Question.realization)
    applicability = store.decisions(Question.applicability)
    alignment = store.decisions(Question.alignment)
    validated = [f for f in store.families() if f.validated]
    assert validated
    for family in validated:
        assert majority(alignment[family.recipe_id].votes, config.votes) is Decision.yes
        joint = 0
        for case in store.cases(family.recipe_id):
            if case.id not in realization:
                continue
            votes_r = realization[case.id].votes
            votes_a = applicability[case.id].votes
            joint += (
                majority(votes_r, config.votes) is Decision.yes
                and majority(votes_a, config.votes) is Decision.yes
            )
        assert joint > config.cases / 2
    store.close()


def test_markdown_report(suite: Path, tmp_path: Path) -> None:
    out_file = tmp_path / "report.md"
    code, _, _ = _invoke("report", str(suite), "--format", "md", "--out", str(out_file))
    assert code == 0
    text = out_file.read_text()
    assert "careful" in text and "lazy" in text


def test_rank_against_human_scores(suite: Path, tmp_path: Path) -> None:
    human = tmp_path / "human.csv"
    human.write_text("target,score\ncareful,0.9\nlazy,0.2\nbroken,0.5\n")
    code, out, err = _invoke("rank", str(suite), "--human", str(human), "--json")
    assert code == 0, err
    payload = json.loads(out)
    assert payload["ranking"][0]["target"] == "careful"
    assert "human_alignment" in payload


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["generate", "missing.yaml", "--suite", "s.db", "--model", "scripted"], "missing.yaml"),
        (["report", "nosuch.db"], "nosuch.db"),
        (["rank", "nosuch.db"], "nosuch.db"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    args: list[str], needle: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = _invoke(*args)
    assert code == 2
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and needle in lines[0]


def test_unknown_target_kind_names_the_field(workdir: Path) -> None:
    spec = workdir / "tiny_spec.yaml"
    spec.write_text(
        spec.read_text().replace('kind: python, ref: "fixture_targets:broken"', "kind: telepathy")
    )
    code, _, err = _invoke(
        "generate",
        str(spec),
        "--suite",
        str(workdir / "s.db"),
        "--model",
        "scripted",
        "--script",
        str(workdir / "tiny_script.yaml"),
        "--cache",
        str(workdir / "c.db"),
    )
    assert code == 2
    assert "targets.broken.kind" in err and "telepathy" in err
    assert not (workdir / "s.db").exists()


def test_version_and_python_dash_m() -> None:
    import subprocess
    import sys
    from importlib.metadata import version

    code, out, _ = _invoke("--version")
    assert code == 0 and out.strip() == f"sane {version('sane')}"
    run = subprocess.run(
        [sys.executable, "-m", "sane", "--version"], capture_output=True, text=True, check=True
    )
    assert run.stdout.strip() == f"sane {version('sane')}"


def test_rank_compare_two_targets(suite: Path) -> None:
    code, out, err = _invoke("rank", str(suite), "--compare", "careful", "lazy", "--json")
    assert code == 0, err
    pair = json.loads(out)["comparison"]
    assert (pair["a"], pair["b"]) == ("careful", "lazy") and pair["cases"] > 0
    assert pair["only_a_passes"] > pair["only_b_passes"]
    assert pair["difference"] > 0 and pair["difference_ci"][0] <= pair["difference"]
    flipped = json.loads(_invoke("rank", str(suite), "--compare", "lazy", "careful", "--json")[1])
    assert flipped["comparison"]["difference"] == -pair["difference"]
    code, out, _ = _invoke("rank", str(suite), "--compare", "careful", "lazy")
    assert code == 0 and "careful vs. lazy" in out and "McNemar" in out


@pytest.mark.parametrize(
    ("pair", "needle"),
    [(["careful", "nobody"], "no target 'nobody'"), (["careful", "careful"], "two different")],
)
def test_rank_compare_refuses_a_bad_pair(suite: Path, pair: list[str], needle: str) -> None:
    code, _, err = _invoke("rank", str(suite), "--compare", *pair)
    assert code != 0 and "--compare" in err and needle in err
