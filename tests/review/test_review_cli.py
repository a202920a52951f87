"""`sane review export|import|agreement` on the tiny scripted suite.

Alignment decisions in tests/fixtures/tiny_script.yaml: rec-1-1 yes, rec-1-2 no,
rec-2-1 yes, rec-2-2 unresolved; rec-1-1 is the validated family.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from typer.testing import CliRunner

from sane.cli import app
from sane.records import Question
from sane.review import load_labels
from sane.suites.store import SuiteStore


def sane(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_export_hides_the_panel_unless_asked(suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "align.csv"
    result = sane("review", "export", suite, "--question", "alignment", "--out", out)
    assert result.exit_code == 0, result.output
    rows = _csv(out)
    assert [r["item_id"] for r in rows] == ["rec-1-1", "rec-1-2", "rec-2-1", "rec-2-2"]
    assert all(r["human_label"] == "" and r["question"] == "alignment" for r in rows)
    assert "panel_decision" not in rows[0]
    assert rows[0]["instruction"] == "Add one claim that the source does not support."
    assert list(rows[0])[-2:] == ["human_label", "note"]

    shown = tmp_path / "shown.csv"
    sane("review", "export", suite, "--question", "alignment", "--out", shown, "--show-panel")
    decisions = {r["item_id"]: r["panel_decision"] for r in _csv(shown)}
    assert decisions == {"rec-1-1": "yes", "rec-1-2": "no", "rec-2-1": "yes",
                         "rec-2-2": "unresolved"}  # fmt: skip


def test_case_export_samples_with_a_seed(suite: Path, tmp_path: Path) -> None:
    def export(seed: int, name: str) -> list[dict]:
        out = tmp_path / name
        args = ("--question", "realization", "--sample", 3, "--seed", seed, "--out", out)
        assert sane("review", "export", suite, *args).exit_code == 0
        return [json.loads(line) for line in out.read_text().splitlines()]

    first, again = export(7, "a.jsonl"), export(7, "b.jsonl")
    assert len(first) == 3 and first == again
    assert all(r["variant.original"] and r["variant.perturbed"] for r in first)
    assert all("example.source" in r for r in first)


def test_import_then_agreement(suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "align.csv"
    sane("review", "export", suite, "--question", "alignment", "--out", out)
    rows = _csv(out)
    # the human disagrees with every effective panel decision (unresolved counts as no)
    opposite = {"rec-1-1": "no", "rec-1-2": "yes", "rec-2-1": "no", "rec-2-2": "yes"}
    for row in rows:
        row["human_label"] = opposite[row["item_id"]]
    rows[0]["note"] = "direction is fine but the claim is vague"
    with out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)

    result = sane("review", "import", suite, out)
    assert result.exit_code == 0, result.output
    assert "imported 4 label(s)" in result.stderr
    store = SuiteStore(suite)
    assert load_labels(store)[Question.alignment]["rec-1-1"] is False
    store.close()

    result = sane("review", "agreement", suite, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    alignment = report["questions"]["alignment"]
    assert alignment["accuracy"] == 0.0 and alignment["kappa"] == -1.0
    assert alignment["panel_unresolved"] == 1
    assert report["questions"]["realization"]["labelled"] == 0
    families = report["families"]
    assert "rec-1-1" in families["lost"]
    assert families["substituted_validated"] == families["panel_validated"] - 1
    assert sane("review", "agreement", suite).stdout.startswith("# Oracle panel vs. human")

    # a later import of the same item replaces its label
    again = tmp_path / "again.jsonl"
    again.write_text(json.dumps({"item_id": "rec-1-1", "question": "alignment",
                                 "human_label": "yes"}) + "\n")  # fmt: skip
    assert sane("review", "import", suite, again).exit_code == 0
    report = json.loads(sane("review", "agreement", suite, "--json").stdout)
    assert report["questions"]["alignment"]["accuracy"] == 0.25


def test_blank_labels_are_skipped(suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "real.jsonl"
    sane("review", "export", suite, "--question", "applicability", "--out", out)
    result = sane("review", "import", suite, out)
    assert result.exit_code == 0 and "imported 0 label(s)" in result.stderr
    agreement = sane("review", "agreement", suite)
    assert agreement.exit_code == 2 and "no human labels yet" in agreement.stderr


def test_bad_review_files_are_bad_input(suite: Path, tmp_path: Path) -> None:
    cases = {
        "label.csv": "item_id,question,human_label\nrec-1-1,alignment,maybe\n",
        "item.csv": "item_id,question,human_label\nrec-9-9,alignment,yes\n",
        "question.csv": "item_id,question,human_label\nrec-1-1,vibes,yes\n",
        "broken.jsonl": "{not json\n",
        "labels.txt": "whatever",
    }
    expected = {
        "label.csv": "row 2.human_label",
        "item.csv": "'rec-9-9' is not a alignment item",
        "question.csv": "row 2.question",
        "broken.jsonl": "line 1",
        "labels.txt": "unknown file type",
    }
    for name, text in cases.items():
        path = tmp_path / name
        path.write_text(text)
        result = sane("review", "import", suite, path)
        assert result.exit_code == 2, (name, result.output)
        assert expected[name] in result.stderr, (name, result.stderr)
    export = sane("review", "export", suite, "--question", "nope", "--out", tmp_path / "x.csv")
    assert export.exit_code == 2


def test_import_waits_for_no_run_it_takes_the_writer_lock(suite: Path, tmp_path: Path) -> None:
    """Labels are a write: while another run holds the suite's lock, import is refused and
    stores nothing (it wrote beside a running `execute` before)."""
    from sane.suites.lock import SuiteLock

    out = tmp_path / "align.csv"
    assert sane("review", "export", suite, "--question", "alignment", "--out", out).exit_code == 0
    rows = _csv(out)
    for row in rows:
        row["human_label"] = "yes"
    with out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    running = SuiteLock(suite)
    running.acquire()  # what a running `sane execute` holds
    try:
        result = sane("review", "import", suite, out)
    finally:
        running.release()
    assert result.exit_code == 2 and "another sane run is writing this suite" in result.stderr
    store = SuiteStore(suite, readonly=True)
    try:
        assert not any(load_labels(store).values())
    finally:
        store.close()
    assert sane("review", "import", suite, out).exit_code == 0


def test_show_panel_exports_every_votes_prompt_and_answer(suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "shown.jsonl"
    args = ("--question", "alignment", "--out", out, "--show-panel")
    assert sane("review", "export", suite, *args).exit_code == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    store = SuiteStore(suite, readonly=True)
    try:
        snapshot = store.snapshot()
    finally:
        store.close()
    for row in rows:
        votes = snapshot.alignment[row["item_id"]].votes
        calls = json.loads(row["panel_transcripts"])
        # one call at least per vote, each with the vote's own decision and the prompt the
        # panel model was sent (it names the recipe it judged)
        assert sorted({c["vote"] for c in calls}) == list(range(len(votes)))
        for call in calls:
            assert call["decision"] == votes[call["vote"]].decision.value
            assert row["instruction"] in call["prompt"] and call["reply"]
    hidden = tmp_path / "hidden.jsonl"
    sane("review", "export", suite, "--question", "alignment", "--out", hidden)
    assert all("panel_transcripts" not in json.loads(line) for line in hidden.open())


def test_the_review_file_carries_the_planted_controls_unmarked(suite: Path, tmp_path: Path) -> None:
    """As the review page does: each planted control among the realization items, under an
    opaque id; answered and imported, the report counts the person's answers to them."""
    from sane import api
    from sane.review import control_subjects
    from sane.suites.store import SuiteStore

    out = tmp_path / "realization.csv"
    assert sane("review", "export", suite, "--question", "realization", "--out", out).exit_code == 0
    rows = _csv(out)
    store = SuiteStore(suite, readonly=True)
    try:
        planted = control_subjects(store.snapshot())
    finally:
        store.close()
    controls = [row for row in rows if row["item_id"] in planted]
    assert controls and all("control" not in row["item_id"] for row in controls)
    for row in controls:  # a faithful edit is right; a no-op or a decoy is not
        row["human_label"] = "yes" if ":faithful:" in planted[row["item_id"]] else "no"
    with out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    assert sane("review", "import", suite, out).exit_code == 0
    assert sane("review", "apply", suite).exit_code == 0
    review = api.report(suite).review
    assert review.controls_answered == len(controls) == review.controls_right
