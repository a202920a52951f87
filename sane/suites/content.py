"""What a suite run generated, stripped of timings and call accounting.

Why: "the same seed gives the same suite" is a promise users rely on when they
regenerate a suite to check that a conclusion reproduces; this is the content
that promise is about (capabilities, recipes, cases, votes, decisions and
verdicts), read straight from the suite file so it can be compared.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

CONTENT_QUERIES = {
    "capabilities": "SELECT id, json FROM capabilities ORDER BY id",
    "recipes": "SELECT id, json FROM recipes ORDER BY id",
    "cases": "SELECT id, json FROM cases ORDER BY id",
    "votes": "SELECT subject_id, question, sample_index, decision, rationale, error FROM votes "
    "ORDER BY subject_id, question, sample_index",
    "decisions": "SELECT subject_id, question, decision FROM decisions ORDER BY 1, 2",
    "verdicts": "SELECT target, case_id, verdict FROM executions ORDER BY target, case_id",
}


def suite_content(path: Path) -> dict[str, list[tuple]]:
    """The generated rows of a suite file, table by table, in a stable order."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return {
            name: [tuple(row) for row in db.execute(sql)] for name, sql in CONTENT_QUERIES.items()
        }


def content_differences(a: Path, b: Path) -> list[str]:
    """One line per table whose generated rows differ between two suites (empty: identical)."""
    left, right = suite_content(a), suite_content(b)
    return [
        f"{name}: {len(left[name])} vs {len(right[name])} rows, "
        f"{sum(x != y for x, y in zip(left[name], right[name]))} differ"
        for name in CONTENT_QUERIES
        if left[name] != right[name]
    ]
