"""`sane review apply`: reviewers' labels replace the panel's decisions, families are
counted again, results follow, and every report lists the overrides.

The tiny suite (tests/fixtures/tiny_script.yaml, n=4, tau=3): rec-1-1 is validated with 3
joint-valid cases (0, 1, 3; case 2 failed to generate); rec-2-1 has 1 of 3 (case 1 was judged
not realized, case 2 not applicable; sequential generation stopped it); rec-1-2 was not
aligned.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from typer.testing import CliRunner

from sane.cli import app
from sane.records import Decision, Question
from sane.suites.store import SuiteStore

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def sane(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


def labelled(path: Path, labels: dict[tuple[str, str], str]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["item_id", "question", "human_label"])
        for (question, item), label in labels.items():
            writer.writerow([item, question, label])
    return path


def report(suite: Path) -> dict:
    result = sane("report", suite, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def llm(suite: Path) -> list[str]:
    return ["--script", str(suite.parent / "tiny_script.yaml"),
            "--cache", str(suite.parent / "cache.db"), "--quiet"]  # fmt: skip


def test_reviewers_decisions_move_families_and_results(suite: Path, tmp_path: Path) -> None:
    import shutil

    shutil.copy(FIXTURES / "tiny_script.yaml", suite.parent / "tiny_script.yaml")
    before = report(suite)
    assert before["validity"]["validated_families"] == 1
    assert before["targets"]["lazy"]["cases_run"] == 3
    file = labelled(
        tmp_path / "labels.csv",
        {
            ("realization", "rec-1-1/case-0"): "no",  # rec-1-1 drops to 2 < tau
            ("realization", "rec-2-1/case-1"): "yes",
            ("applicability", "rec-2-1/case-1"): "yes",  # the panel never asked
            ("applicability", "rec-2-1/case-2"): "yes",  # rec-2-1 reaches 3 = tau
            ("realization", "rec-2-1/case-0"): "yes",  # agrees with the panel
        },
    )
    assert sane("review", "import", suite, file).exit_code == 0
    applied = sane("review", "apply", suite)
    assert applied.exit_code == 0, applied.output
    assert "applied 5 human decision(s), 4 different from the panel's" in applied.stderr
    assert "validated families 1 -> 1 (gained rec-2-1) (lost rec-1-1)" in applied.stderr
    assert "run `sane execute" in applied.stderr

    after = report(suite)
    assert after["validity"]["validated_families"] == 1
    assert after["review"]["validated_by_panel"] == 1
    assert after["review"]["applied"] == {"alignment": 0, "realization": 3, "applicability": 2}
    assert {(o["subject_id"], o["panel"], o["human"]) for o in after["review"]["changed"]} == {
        ("rec-1-1/case-0", "yes", "no"),
        ("rec-2-1/case-1", "no", "yes"),
        ("rec-2-1/case-1", "none", "yes"),
        ("rec-2-1/case-2", "no", "yes"),
    }
    # rec-1-1's results no longer count; rec-2-1's cases have none yet
    assert after["targets"] == {} or all(t["cases_run"] == 0 for t in after["targets"].values())

    code = sane("execute", suite, "--trust-suite-code", *llm(suite)).exit_code
    assert code in (0, 4)  # 4: the `broken` target errors on every case
    executed = report(suite)
    assert executed["targets"]["careful"]["cases_run"] == 3  # rec-2-1's three valid cases
    families = {f for t in executed["targets"].values() for f in t["by_family"]}
    assert families == {"rec-2-1"}
    md = sane("report", suite, "--format", "md").stdout
    assert "Human review in force" in md and "rec-2-1/case-1 no -> yes" in md

    # the agreement still compares the panel's own decisions with the labels
    agreement = json.loads(sane("review", "agreement", suite, "--json").stdout)
    assert agreement["questions"]["realization"]["labelled"] == 3
    assert agreement["questions"]["realization"]["accuracy"] == 1 / 3


def test_a_recipe_reviewers_align_gets_cases_from_the_next_generate(
    suite: Path, tmp_path: Path
) -> None:
    import shutil

    shutil.copy(FIXTURES / "tiny_script.yaml", suite.parent / "tiny_script.yaml")
    shutil.copy(FIXTURES / "tiny_spec.yaml", suite.parent / "tiny_spec.yaml")
    shutil.copy(FIXTURES / "tiny_examples.jsonl", suite.parent / "tiny_examples.jsonl")
    file = labelled(tmp_path / "labels.csv", {("alignment", "rec-1-2"): "yes"})
    assert sane("review", "import", suite, file).exit_code == 0
    applied = sane("review", "apply", suite)
    assert applied.exit_code == 0, applied.output
    assert "1 recipe(s) aligned by reviewers have no cases yet" in applied.stderr
    store = SuiteStore(suite, readonly=True)
    try:
        decided = store.decisions(Question.alignment)["rec-1-2"]
        assert decided.decision is Decision.yes and decided.panel is Decision.no
        assert store.cases("rec-1-2") == []
    finally:
        store.close()
    args = ["--model", "scripted", "--votes", "3", "--cases", "4", "--capabilities", "2",
            "--recipes", "2"]  # fmt: skip
    generated = sane("generate", suite.parent / "tiny_spec.yaml", "--suite", suite, *args,
                     *llm(suite))  # fmt: skip
    assert generated.exit_code == 0, generated.output
    store = SuiteStore(suite, readonly=True)
    try:
        assert len(store.cases("rec-1-2")) == 4
        assert "rec-1-2" in {f.recipe_id for f in store.families()}
    finally:
        store.close()


def test_apply_without_labels_is_refused_and_changes_nothing(suite: Path) -> None:
    import hashlib

    digest = hashlib.sha256(suite.read_bytes()).hexdigest()
    result = sane("review", "apply", suite)
    assert result.exit_code == 2 and "no human labels yet" in result.stderr
    assert hashlib.sha256(suite.read_bytes()).hexdigest() == digest
