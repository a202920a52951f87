"""Human labels in the suite file: table ``human_labels``, one label per decision.

Why in the suite file: the labels belong with the decisions they judge, so a suite
carries its own audit. A later import of the same (item, question) replaces the label.
"""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict

from sane.records import Question
from sane.suites.store import HUMAN_LABELS as TABLE
from sane.suites.store import SuiteStore


class HumanLabel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    item_id: str
    question: Question
    label: bool
    reviewer: str = ""
    note: str = ""


def save_labels(store: SuiteStore, labels: list[HumanLabel], source: str = "") -> int:
    """Store (or replace) labels; returns how many were written."""
    imported = datetime.now(UTC).isoformat(timespec="seconds")
    rows = [
        {
            "subject_id": label.item_id,
            "question": label.question.value,
            "label": "yes" if label.label else "no",
            "reviewer": label.reviewer,
            "note": label.note,
            "source": source,
            "imported": imported,
        }
        for label in labels
    ]
    if rows:
        store.db[TABLE].upsert_all(rows, pk=("subject_id", "question"))
    return len(rows)


def load_labels(store: SuiteStore) -> dict[Question, dict[str, bool]]:
    """question -> item id -> human says yes."""
    labels: dict[Question, dict[str, bool]] = {question: {} for question in Question}
    if not store.db[TABLE].exists():
        return labels
    for row in store.db.query(f"select subject_id, question, label from {TABLE}"):
        labels[Question(row["question"])][row["subject_id"]] = row["label"] == "yes"
    return labels
