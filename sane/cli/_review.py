"""`sane review export|import|agreement`: human labels for the oracle panel's decisions."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from sane.cli._common import app, err, errors_to_exit_codes, say
from sane.errors import InputError
from sane.records import Question

review_app = typer.Typer(
    help="Human review of the oracle panel: export, import labels, agreement.",
    no_args_is_help=True,
)
app.add_typer(review_app, name="review")


@review_app.command("export")
def export(
    suite: Annotated[Path, typer.Argument(help="Suite file.")],
    question: Annotated[Question, typer.Option(help="Which decisions to export.")],
    out: Annotated[Path, typer.Option(help="Review file to write: .csv or .jsonl.")],
    sample: Annotated[
        int | None, typer.Option(min=1, help="Random sample of this many items.")
    ] = None,
    seed: Annotated[int, typer.Option(help="Sampling seed.")] = 0,
    show_panel: Annotated[
        bool,
        typer.Option(
            "--show-panel",
            help="Add the panel's decision, votes and the votes' prompts and answers as columns.",
        ),
    ] = False,
) -> None:
    """Write panel decisions for human labelling (empty human_label column)."""
    from sane.review import panel_call_keys, review_items, sample_items, write_items
    from sane.suites.store import SuiteStore

    with errors_to_exit_codes():
        store = SuiteStore(suite, readonly=True)
        try:
            snapshot = store.snapshot()
            calls = store.transcripts(panel_call_keys(snapshot, question)) if show_panel else {}
        finally:
            store.close()
        items = sample_items(review_items(snapshot, question, calls), sample, seed)
        written = write_items(items, out, show_panel=show_panel)
    say(f"wrote {written} {question.value} item(s) to {out}", to=err)


@review_app.command("import")
def import_(
    suite: Annotated[Path, typer.Argument(help="Suite file.")],
    file: Annotated[Path, typer.Argument(help="Labelled review file (.csv or .jsonl).")],
) -> None:
    """Store the human labels of a review file in the suite (blank labels are skipped)."""
    from sane.review import control_subjects, read_labels, save_labels
    from sane.suites.store import SuiteStore

    with errors_to_exit_codes():
        labels, blank = read_labels(file)
        store = SuiteStore(suite, writer=True)  # the writer lock: no run writes meanwhile
        try:
            snapshot = store.snapshot()
            planted = control_subjects(snapshot)  # a control's opaque id -> its subject
            labels = [
                label.model_copy(update={"item_id": planted[label.item_id]})
                if label.question is Question.realization and label.item_id in planted
                else label
                for label in labels
            ]
            known = {
                Question.alignment: {r.id for r in snapshot.recipes},
                Question.realization: {c.id for c in snapshot.cases} | set(planted.values()),
                Question.applicability: {c.id for c in snapshot.cases},
            }
            for label in labels:
                if label.item_id not in known[label.question]:
                    raise InputError(
                        str(file),
                        "item_id",
                        f"{label.item_id!r} is not a {label.question.value} item of this suite",
                    )
            saved = save_labels(store, labels, source=file.name)
        finally:
            store.close()
    say(f"imported {saved} label(s); {blank} row(s) without a label", to=err)


@review_app.command("apply")
def apply_(suite: Annotated[Path, typer.Argument(help="Suite file.")]) -> None:
    """Put the imported human labels in place of the panel's decisions; recount families."""
    from sane.review import apply_labels
    from sane.suites.store import SuiteStore

    with errors_to_exit_codes():
        store = SuiteStore(suite, writer=True)
        try:
            result = apply_labels(store)
        finally:
            store.close()
    changed = sum(result.changed.values())
    say(
        f"applied {sum(result.applied.values())} human decision(s), {changed} different from "
        f"the panel's; validated families {result.validated_before} -> {result.validated_after}"
        + (f" (gained {', '.join(result.gained)})" if result.gained else "")
        + (f" (lost {', '.join(result.lost)})" if result.lost else ""),
        to=err,
    )
    if result.need_cases:
        say(
            f"{len(result.need_cases)} recipe(s) aligned by reviewers have no cases yet: rerun "
            "`sane generate` with the suite's options to write and judge them",
            to=err,
        )
    if result.cases_to_execute:
        say(
            f"{result.cases_to_execute} valid case result(s) missing: run `sane execute {suite}`",
            to=err,
        )


@review_app.command("agreement")
def agreement_(
    suite: Annotated[Path, typer.Argument(help="Suite file.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Panel vs. human: accuracy, Cohen's kappa, and the effect on validated families."""
    from sane.review import agreement, load_labels, render_agreement
    from sane.suites.store import SuiteStore

    with errors_to_exit_codes():
        store = SuiteStore(suite, readonly=True)
        try:
            snapshot, labels = store.snapshot(), load_labels(store)
        finally:
            store.close()
        if not any(labels.values()):
            raise InputError(str(suite), None, "no human labels yet; run `sane review import`")
        result = agreement(snapshot, labels)
    if as_json:
        sys.stdout.write(json.dumps(result.model_dump(mode="json"), indent=2) + "\n")
    else:
        sys.stdout.write(render_agreement(result))
