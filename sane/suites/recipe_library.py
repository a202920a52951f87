"""The recipe library: aligned recipes accumulated across suites and scorers, in one SQLite file.

Why: the SANE paper reports that derived recipe inventories grow as scorers are added (108
unique aligned recipes over five scorers against seven for a fixed harness, section 5.1,
Figure 5) and proposes reusing validated recipes of related scorers (section 6). The
library keeps every aligned recipe of every suite added to it (with whether its family was
validated), answers the paper's subset analysis, and supplies reused recipes to the
``library:PATH`` generator (:mod:`sane.generators.library`).

A recipe's identity across suites is its **key**: the SHA-256 of its requirement, its
lower-cased whitespace-normalised instruction and its relation (JSON). The same recipe
aligned for several scorers (a fixed harness's) is one unique recipe; two differently worded
recipes are two.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime
from itertools import combinations
from pathlib import Path
from statistics import fmean

import sqlite_utils
from pydantic import Field

from sane._record import Record
from sane.errors import InputError
from sane.records import Decision, Recipe, SuiteSnapshot
from sane.suites.store import SuiteStore

MAX_EXACT_SCORERS = 14
"""Up to this many scorers every subset is enumerated (2^14 - 1 = 16383 subsets)."""


class LibraryRecipe(Record):
    key: str
    scorer: str
    suite: str
    validated: bool
    capability: str
    capability_description: str
    recipe: Recipe


class AddResult(Record):
    scorer: str
    aligned: int
    validated: int
    new_keys: int
    library_unique: int


class SubsetRow(Record):
    """Unique aligned recipes over all scorer subsets of one size (SANE Figure 5)."""

    size: int
    subsets: int
    mean: float
    min: int
    max: int


class LibraryStats(Record):
    scorers: dict[str, int] = Field(default_factory=dict)
    validated: dict[str, int] = Field(default_factory=dict)
    unique_aligned: int = 0
    unique_validated: int = 0
    subsets: list[SubsetRow] = Field(default_factory=list)


def recipe_key(recipe: Recipe) -> str:
    """Identity of a recipe across suites: requirement, normalised instruction, relation."""
    text = " ".join(recipe.instruction.lower().split())
    payload = json.dumps(
        [recipe.requirement.value, text, recipe.relation.model_dump(mode="json")], sort_keys=True
    )
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def subset_analysis(keys_by_scorer: dict[str, set[str]]) -> list[SubsetRow]:
    """For each subset size k: mean, min and max of |union of the subset's keys| over all
    k-subsets of scorers (enumerating subsets avoids an arbitrary order of addition)."""
    scorers = sorted(keys_by_scorer)
    if len(scorers) > MAX_EXACT_SCORERS:
        raise InputError(
            None, "library", f"subset analysis enumerates at most {MAX_EXACT_SCORERS} scorers"
        )
    rows = []
    for size in range(1, len(scorers) + 1):
        counts = [
            len(set().union(*(keys_by_scorer[s] for s in subset)))
            for subset in combinations(scorers, size)
        ]
        rows.append(
            SubsetRow(
                size=size, subsets=len(counts), mean=fmean(counts), min=min(counts), max=max(counts)
            )
        )
    return rows


class RecipeLibrary:
    """One library file; ``add_suite`` is idempotent (a suite re-added replaces its rows)."""

    def __init__(self, path: str | Path, *, create: bool = False) -> None:
        self.path = Path(path)
        if not create and not self.path.is_file():
            raise InputError(str(self.path), None, "library file not found")
        try:
            self.db = sqlite_utils.Database(sqlite3.connect(self.path, timeout=30.0))
            self.db["recipes"].create(
                {
                    "scorer": str,
                    "suite": str,
                    "recipe_id": str,
                    "key": str,
                    "requirement": str,
                    "validated": int,
                    "capability": str,
                    "capability_description": str,
                    "criterion": str,
                    "json": str,
                    "added": str,
                },
                pk=("scorer", "suite", "recipe_id"),
                if_not_exists=True,
            )
        except sqlite3.DatabaseError:
            raise InputError(str(self.path), None, "not a recipe library (not SQLite)") from None

    def close(self) -> None:
        self.db.conn.close()

    def add_snapshot(self, snapshot: SuiteSnapshot, suite: str) -> AddResult:
        """Store the suite's aligned recipes (with their families' validation)."""
        validated = {f.recipe_id for f in snapshot.families if f.validated}
        capabilities = {c.id: c for c in snapshot.capabilities}
        aligned = [
            r
            for r in snapshot.recipes
            if (d := snapshot.alignment.get(r.id)) is not None and d.decision is Decision.yes
        ]
        before = set(self.keys())
        now = datetime.now(UTC).isoformat(timespec="seconds")
        self.db.execute(
            "delete from recipes where scorer = ? and suite = ?", [snapshot.spec.name, suite]
        )
        rows = []
        for recipe in aligned:
            capability = capabilities.get(recipe.capability_id)
            rows.append(
                {
                    "scorer": snapshot.spec.name,
                    "suite": suite,
                    "recipe_id": recipe.id,
                    "key": recipe_key(recipe),
                    "requirement": recipe.requirement.value,
                    "validated": int(recipe.id in validated),
                    "capability": capability.name if capability else recipe.capability_id,
                    "capability_description": capability.description if capability else "",
                    "criterion": snapshot.spec.criterion,
                    "json": recipe.model_dump_json(),
                    "added": now,
                }
            )
        self.db["recipes"].insert_all(rows, pk=("scorer", "suite", "recipe_id"), replace=True)
        self.db.conn.commit()
        keys = {row["key"] for row in rows}
        return AddResult(
            scorer=snapshot.spec.name,
            aligned=len(rows),
            validated=sum(row["validated"] for row in rows),
            new_keys=len(keys - before),
            library_unique=len(set(self.keys())),
        )

    def add_suite(self, suite: str | Path) -> AddResult:
        store = SuiteStore(suite, readonly=True)
        try:
            snapshot = store.snapshot()
        finally:
            store.close()
        return self.add_snapshot(snapshot, str(Path(suite).resolve()))

    def keys(self, *, validated_only: bool = False) -> list[str]:
        sql = "select distinct key from recipes" + (
            " where validated = 1" if validated_only else ""
        )
        return [row["key"] for row in self.db.query(sql)]

    def keys_by_scorer(self, *, validated_only: bool = False) -> dict[str, set[str]]:
        result: dict[str, set[str]] = {}
        sql = "select scorer, key from recipes" + (" where validated = 1" if validated_only else "")
        for row in self.db.query(sql):
            result.setdefault(row["scorer"], set()).add(row["key"])
        return result

    def criteria(self) -> dict[str, str]:
        return {
            row["scorer"]: row["criterion"]
            for row in self.db.query("select scorer, criterion from recipes order by added")
        }

    def stats(self) -> LibraryStats:
        by_scorer = self.keys_by_scorer()
        validated = self.keys_by_scorer(validated_only=True)
        return LibraryStats(
            scorers={s: len(k) for s, k in sorted(by_scorer.items())},
            validated={s: len(validated.get(s, set())) for s in sorted(by_scorer)},
            unique_aligned=len(self.keys()),
            unique_validated=len(self.keys(validated_only=True)),
            subsets=subset_analysis(by_scorer) if by_scorer else [],
        )

    def recipes(
        self, scorers: Sequence[str], *, validated_only: bool = True
    ) -> list[LibraryRecipe]:
        """The scorers' recipes (validated ones by default), one per key, in a stable order."""
        if not scorers:
            return []
        marks = ", ".join("?" for _ in scorers)
        sql = f"select * from recipes where scorer in ({marks})"
        if validated_only:
            sql += " and validated = 1"
        seen: set[str] = set()
        result = []
        order = {s: i for i, s in enumerate(scorers)}
        rows = sorted(
            self.db.query(sql, list(scorers)),
            key=lambda r: (order[r["scorer"]], r["suite"], r["recipe_id"]),
        )
        for row in rows:
            if row["key"] in seen:
                continue
            seen.add(row["key"])
            result.append(
                LibraryRecipe(
                    key=row["key"],
                    scorer=row["scorer"],
                    suite=row["suite"],
                    validated=bool(row["validated"]),
                    capability=row["capability"],
                    capability_description=row["capability_description"],
                    recipe=Recipe.model_validate_json(row["json"]),
                )
            )
        return result

    def recipe(self, key: str) -> LibraryRecipe | None:
        rows = list(self.db.query("select scorer from recipes where key = ? limit 1", [key]))
        if not rows:
            return None
        found = [r for r in self.recipes([rows[0]["scorer"]], validated_only=False) if r.key == key]
        return found[0] if found else None
