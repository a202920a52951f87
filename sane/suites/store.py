"""The suite store: one SQLite file holds a suite's spec, recipes, cases, votes and results.

Every record is written (and committed) as soon as it exists, so an interrupted
run loses nothing it finished; every stage asks the store what is already done
before it does work. The store is the only resume mechanism: a rerun of an
interrupted run does only what is missing here.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import TypeAdapter, ValidationError

from sane.comparison_record import ComparisonAudit
from sane.errors import InputError
from sane.inflation_record import SearchResult
from sane.llm import SUITE_CAP
from sane.qualification_record import Qualification
from sane.records import (
    CallRecord,
    Capability,
    Case,
    Decision,
    Example,
    ExecutionRecord,
    Family,
    PanelDecision,
    Question,
    Recipe,
    RunConfig,
    ScorerSpec,
    Stage,
    SuiteSnapshot,
    SuiteTarget,
    Transcript,
    Verdict,
    Vote,
)
from sane.suites.lock import SuiteLock
from sane.target_kind import STORED

if TYPE_CHECKING:
    import sqlite_utils

SCHEMA_VERSION = 1
HUMAN_LABELS = "human_labels"  # the table `sane review import` writes (sane.review._labels)

# Every table a report reads: a write to any of them moves the suite's revision (SQLite
# triggers), so a report stored at one revision is served only while nothing has changed.
REVISED_TABLES = (
    "capabilities",
    "recipes",
    "cases",
    "votes",
    "decisions",
    "families",
    "tolerances",
    "executions",
    "inflation",
    "comparisons",
    "calls",
    "errors",
    "targets",
    "review_overrides",
    "transcripts",
)
_EXAMPLES = TypeAdapter(list[dict[str, str]])
_VOTES = TypeAdapter(list[Vote])  # many at once: one pass, not one per row
_CALLS = TypeAdapter(list[CallRecord])
_QUALIFICATIONS = TypeAdapter(dict[str, Qualification])
_OBJECT = TypeAdapter(dict[str, Any])
# Targets read from a suite: a key of the flat record of earlier releases that their kind never
# read is dropped, not refused (sane.target_kind.TargetConfig), so such a suite still opens.
_STORED = {STORED: True}


def _stored_target(text: str | bytes) -> SuiteTarget:
    return SuiteTarget.model_validate_json(text, context=_STORED)


def _stored_spec(data: Any) -> ScorerSpec:
    return ScorerSpec.model_validate(data, context=_STORED)


P = TypeVar("P")  # a row's payload as read: JSON text, a column's value, a row as a dict
T = TypeVar("T")  # what it parses into


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _upsert(table: str, key: str, *columns: str) -> str:
    """The statement that inserts a row or, when its key is there, updates it in place (as
    sqlite-utils' upsert does, without reading the table's schema first)."""
    names = (key, *columns)
    updates = ", ".join(f"{c} = excluded.{c}" for c in columns)
    return (
        f"insert into {table} ({', '.join(names)}) values ({', '.join('?' for _ in names)}) "
        f"on conflict ({key}) do update set {updates}"
    )


_UPSERT_CAPABILITY = _upsert("capabilities", "id", "seq", "json")
_UPSERT_RECIPE = _upsert("recipes", "id", "seq", "json")
_UPSERT_CASE = _upsert("cases", "id", "recipe_id", "idx", "json")


class SuiteStore:
    """Typed access to one suite file. Each write commits at once, a record with the rows
    that belong to it (a decision with its votes) in one transaction.

    `writer=True` (generate, execute) holds the suite's lock until `close`, so a
    second writing run on the same file is refused (see sane.suites.lock).
    """

    def __init__(
        self,
        path: str | Path,
        *,
        create: bool = False,
        writer: bool = False,
        readonly: bool = False,
    ) -> None:
        import sqlite_utils  # a few tenths of a second; `read_stored_report` does without

        self.path = Path(path)
        self._lock: SuiteLock | None = None
        self._transcript_bytes: int | None = None  # prompts + replies kept, read on first use
        if create and not self.path.parent.is_dir():
            raise InputError(str(self.path), "--suite", "its directory does not exist")
        existing = not create or self.path.exists()
        if existing:
            # An existing file is checked read-only first: a foreign, newer or damaged file
            # is refused before anything (even the WAL pragma) could change it.
            _check_is_suite(self.path, blank_ok=create, integrity=writer)
        if readonly:
            # report, rank, view, check: never a write, so a suite in a read-only folder
            # (or on a read-only medium) is served as it is
            conn = sqlite3.connect(_readonly_uri(self.path), uri=True, check_same_thread=False)
            self.db = sqlite_utils.Database(conn)
            return
        if writer:
            self._lock = SuiteLock(self.path)
            self._lock.acquire()
        try:
            conn = sqlite3.connect(
                self.path, timeout=30.0, isolation_level=None, check_same_thread=False
            )
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA busy_timeout=30000")
            conn.execute("PRAGMA synchronous=NORMAL")
            self.db = sqlite_utils.Database(conn)
            if existing:
                self._check_rows()
            _build_schema(self.db, create=create)
        except BaseException:
            if self._lock is not None:
                self._lock.release()
            raise

    # -------------------------------------------------------------------- meta
    def _set_meta(self, key: str, value: object) -> None:
        self.db["meta"].upsert({"key": key, "value": json.dumps(value)}, pk="key")

    def _get_meta(self, key: str, parse: Callable[[Any], Any] = lambda value: value) -> Any:
        """A meta value (None: absent), its JSON decoded and then given to `parse`."""
        rows = self.db.conn.execute("select key, value from meta where key = ?", [key])
        values = self._rows("meta", rows, lambda text: parse(json.loads(text)))
        return values[0] if values else None

    def _required_meta(self, key: str, parse: Callable[[Any], T]) -> T:
        """A meta value every suite has once its generation began (its spec, its config)."""
        value = self._get_meta(key, parse)
        if value is None:
            raise _damaged(self.path, "meta", key, ValueError("missing"))
        return value

    def _rows(
        self, table: str, rows: Iterable[tuple[object, P]], parse: Callable[[P], T]
    ) -> list[T]:
        return _parse_rows(self.path, table, rows, parse)

    def _rows_at_once(
        self,
        table: str,
        rows: list[tuple[object, P]],
        many: Callable[[list[P]], list[T]],
        one: Callable[[P], T],
    ) -> list[T]:
        """`many` parses a big table's rows in one pass; only when that fails are they parsed
        one by one (`one`), to name the row that is damaged."""
        try:
            return many([payload for _, payload in rows])
        except (ValueError, TypeError):
            return self._rows(table, rows, one)

    def _check_rows(self) -> None:
        """Parse every row a report reads, before a run writes to a suite it did not just
        create: a damaged row found midway would stop the run after its first writes, and
        found here the file is refused untouched."""
        if self._get_meta("spec") is not None:  # a suite whose generation has begun
            self.snapshot()

    def initialise(self, spec: ScorerSpec, config: RunConfig, examples: list[Example]) -> None:
        """Record what the suite is generated from; an existing suite must match it. Targets
        are not part of this: they live in their own table (`put_targets`)."""
        scorer = spec.model_copy(update={"targets": []})
        if self._get_meta("spec") is None:
            self._set_meta("schema_version", SCHEMA_VERSION)
            self._set_meta("created", _now())
            self._set_meta("spec", scorer.model_dump(mode="json"))
            self._set_meta("config", config.model_dump(mode="json"))
            self._set_meta("examples", examples)
            return
        stored = self.spec().model_copy(update={"targets": []})
        if stored != scorer or self.config() != config or self.examples() != examples:
            raise InputError(
                str(self.path),
                None,
                "suite already holds a different spec, examples or configuration "
                "(only targets may change); use a new --suite file",
            )

    def put_qualification(self, qualification: Qualification) -> None:
        """Keep an oracle model's qualification (one per model; a newer one replaces it)."""
        stored = self._get_meta("qualifications", _OBJECT.validate_python) or {}
        stored[qualification.model] = qualification.model_dump(mode="json")
        self._set_meta("qualifications", stored)

    def qualifications(self) -> list[Qualification]:
        stored = self._get_meta("qualifications", _QUALIFICATIONS.validate_python) or {}
        return list(stored.values())

    # ------------------------------------------------------------------ targets
    def put_targets(self, targets: Iterable[SuiteTarget]) -> list[str]:
        """Add targets, or replace those of the same name (their order is kept). A replaced
        definition's results and tolerance are removed with it: the suite holds only results
        of the definitions it holds. Returns the names added or replaced."""
        stored = {t.config.name: t for t in self.targets()}
        order = dict(self.db.conn.execute("select name, seq from targets"))
        changed: list[str] = []
        for target in targets:
            name = target.config.name
            old = stored.get(name)
            if old is not None and old.definition_sha256 == target.definition_sha256:
                continue
            seq = order.setdefault(name, len(order))
            row = [name, seq, target.model_dump_json()]
            with self.db.atomic() as db:
                if old is not None:
                    self._forget_results(name)
                db.conn.execute("insert or replace into targets values (?, ?, ?)", row)
            changed.append(name)
        return changed

    def forget_results(self, target: str) -> None:
        """Remove a target's executions and tolerance (its definition stays): its verdicts
        were checked with a tolerance the next run would not use, so it runs again."""
        with self.db.atomic():
            self._forget_results(target)

    def checked_again(self, target: str, results: list[ExecutionRecord], estimate: dict) -> None:
        """A target's results checked again under another tolerance, with the tolerance
        estimate that sets it, in one transaction: an interrupted run leaves the old bar's
        results and estimate, which the next run checks again."""
        with self.db.atomic():
            for record in results:
                self.put_execution(record)
            self.put_tolerance(target, estimate)

    def _forget_results(self, target: str) -> None:
        self.db.conn.execute("delete from executions where target = ?", [target])
        self.db.conn.execute("delete from tolerances where target = ?", [target])

    def targets(self) -> list[SuiteTarget]:
        if not self.db["targets"].exists():  # an old suite opened read-only
            return []
        rows = self.db.conn.execute("select name, json from targets order by seq")
        return self._rows("targets", rows, _stored_target)

    def revision(self) -> int | None:
        """How many writes the report's tables have had (None: a suite from before)."""
        return self._get_meta("revision", lambda v: int(v) if isinstance(v, int | str) else None)

    def save_report(self, report: dict, *, revision: int | None, code: str) -> None:
        """Keep the report built at `revision` by the code whose fingerprint is `code`."""
        self._set_meta("report", {"revision": revision, "code": code, "report": report})

    def spec(self, targets: list[SuiteTarget] | None = None) -> ScorerSpec:
        """The scorer, with the targets the suite holds now (an old suite: its spec's own);
        `targets` when the caller has just read them."""
        spec = self._required_meta("spec", _stored_spec)
        targets = self.targets() if targets is None else targets
        return spec.model_copy(update={"targets": [t.config for t in targets]}) if targets else spec

    def config(self) -> RunConfig:
        return self._required_meta("config", RunConfig.model_validate)

    def examples(self) -> list[Example]:
        return self._get_meta("examples", lambda v: _EXAMPLES.validate_python(v or [])) or []

    def created(self) -> str:
        return str(self._get_meta("created") or "")

    def mark(self, stage: Stage) -> None:
        self._set_meta(f"done:{stage}", True)

    def reopen(self, stages: Iterable[Stage]) -> None:
        """Mark stages as not done, so the next run does their missing work."""
        for stage in stages:
            self.db.execute("delete from meta where key = ?", [f"done:{stage}"])

    def is_done(self, stage: Stage) -> bool:
        return bool(self._get_meta(f"done:{stage}"))

    # --------------------------------------------------------- generated items
    # Items are written with plain statements: sqlite-utils' upserts read the table's
    # schema on every call, and a run writes a case or a decision for every few LLM calls,
    # on the event loop that is meanwhile keeping calls in flight.
    def put_capabilities(self, capabilities: list[Capability]) -> None:
        rows = [(c.id, i, c.model_dump_json()) for i, c in enumerate(capabilities)]
        with self.db.atomic() as db:
            db.conn.executemany(_UPSERT_CAPABILITY, rows)

    def capabilities(self) -> list[Capability]:
        rows = self.db.conn.execute("select id, json from capabilities order by seq")
        return self._rows("capabilities", rows, Capability.model_validate_json)

    def put_recipes(self, recipes: list[Recipe]) -> None:
        with self.db.atomic() as db:
            (start,) = db.conn.execute("select count(*) from recipes").fetchone()
            rows = [(r.id, start + i, r.model_dump_json()) for i, r in enumerate(recipes)]
            db.conn.executemany(_UPSERT_RECIPE, rows)

    def recipes(self) -> list[Recipe]:
        rows = self.db.conn.execute("select id, json from recipes order by seq")
        return self._rows("recipes", rows, Recipe.model_validate_json)

    def put_case(self, case: Case) -> None:
        self.db.conn.execute(
            _UPSERT_CASE,
            (case.id, case.recipe_id, case.index, case.model_dump_json()),
        )

    def cases(self, recipe_id: str | None = None) -> list[Case]:
        sql, args = "select id, json from cases", []
        if recipe_id is not None:
            sql, args = sql + " where recipe_id = ?", [recipe_id]
        rows = self.db.conn.execute(sql + " order by recipe_id, idx", args)
        return self._rows("cases", rows, Case.model_validate_json)

    # -------------------------------------------------------------------- votes
    def put_decision(self, decision: PanelDecision) -> None:
        """A decision and its votes, in one transaction: a stored decision always has all
        its votes, and a run writes one for every few LLM calls."""
        stage = f"vote:{decision.question.value}"
        with self.db.atomic() as db:
            db.conn.executemany(
                "insert or replace into votes (subject_id, question, sample_index, model, "
                "decision, rationale, raw, error, transcripts, seed) "
                "values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (v.subject_id, v.question.value, v.sample_index, v.model, v.decision.value)
                    + (v.rationale, v.raw, v.error, json.dumps(v.transcripts), v.seed)
                    for v in decision.votes
                ],
            )
            # A vote that failed is an error of its panel stage too, so the report counts it.
            db.conn.execute(
                "delete from errors where stage = ? and subject = ?", [stage, decision.subject_id]
            )
            for vote in decision.votes:
                if vote.error:
                    message = f"vote {vote.sample_index} ({vote.model}): {vote.error}"
                    self.put_error(stage, decision.subject_id, message)
            db.conn.execute(
                "insert into decisions (subject_id, question, decision) values (?, ?, ?) "
                "on conflict (subject_id, question) do update set decision = excluded.decision",
                [decision.subject_id, decision.question.value, decision.decision.value],
            )

    def decisions(self, question: Question) -> dict[str, PanelDecision]:
        """The decisions in force: the panel's, or a reviewer's where `sane review apply`
        put one in its place (table `review_overrides`; the panel's decision is kept)."""
        cursor = self.db.conn.execute(
            "select * from votes where question = ? order by subject_id, sample_index",
            [question.value],
        )
        names = [column[0] for column in cursor.description]
        rows = [dict(zip(names, row, strict=True)) for row in cursor]
        keyed = [((r["subject_id"], r["question"], r["sample_index"]), r) for r in rows]
        votes: dict[str, list[Vote]] = {}
        parsed = self._rows_at_once(
            "votes",
            keyed,
            lambda rows: _VOTES.validate_python([_vote_row(row) for row in rows]),
            lambda row: Vote.model_validate(_vote_row(row)),
        )
        for vote in parsed:
            votes.setdefault(vote.subject_id, []).append(vote)
        human = self.overrides(question)
        decided = {}
        stored = self.db.conn.execute(
            "select subject_id, decision from decisions where question = ?", [question.value]
        ).fetchall()
        for (subject, _), panel in zip(
            stored, self._rows("decisions", stored, Decision), strict=True
        ):
            override = human.get(subject)
            decided[subject] = PanelDecision(
                subject_id=subject,
                question=question,
                decision=panel if override is None else override,
                votes=votes.get(subject, []),
                by_human=override is not None,
                panel_decision=None if override is None else panel,
            )
        for subject, override in human.items():  # items the panel never decided
            if subject not in decided:
                decided[subject] = PanelDecision(
                    subject_id=subject, question=question, decision=override, votes=[],
                    by_human=True,
                )  # fmt: skip
        return decided

    def put_overrides(
        self, question: Question, decisions: dict[str, Decision], source: str
    ) -> None:
        """Put reviewers' decisions in place of the panel's, all in one transaction."""
        applied = _now()
        rows = [
            [subject, question.value, d.value, source, applied] for subject, d in decisions.items()
        ]
        with self.db.atomic() as db:
            db.conn.executemany(
                "insert or replace into review_overrides values (?, ?, ?, ?, ?)", rows
            )

    def overrides(self, question: Question) -> dict[str, Decision]:
        if not self.db["review_overrides"].exists():  # an old suite opened read-only
            return {}
        rows = self.db.conn.execute(
            "select subject_id, decision from review_overrides where question = ?",
            [question.value],
        ).fetchall()
        decisions = self._rows("review_overrides", rows, Decision)
        return {subject: decision for (subject, _), decision in zip(rows, decisions, strict=True)}

    # ----------------------------------------------------------------- families
    def put_families(self, families: Iterable[Family], *, replace: bool = False) -> None:
        """Store family rows; `replace` drops the rows of recipes not among them (a recount
        after reviewers' decisions), in the same transaction."""
        rows = [[f.recipe_id, f.model_dump_json()] for f in families]
        with self.db.atomic() as db:
            if replace:
                db.conn.execute("delete from families")
            db.conn.executemany("insert or replace into families values (?, ?)", rows)

    def families(self) -> list[Family]:
        rows = self.db.conn.execute(
            "select f.recipe_id, f.json from families f join recipes r on r.id = f.recipe_id "
            "order by r.seq"
        )
        return self._rows("families", rows, Family.model_validate_json)

    # ---------------------------------------------------------------- execution
    def put_tolerance(self, target: str, estimate: dict) -> None:
        self.db["tolerances"].upsert({"target": target, "json": json.dumps(estimate)}, pk="target")

    def tolerances(self) -> dict[str, dict]:
        rows = self.db.conn.execute("select target, json from tolerances").fetchall()
        estimates = self._rows("tolerances", rows, _tolerance_estimate)
        return {target: estimate for (target, _), estimate in zip(rows, estimates, strict=True)}

    def put_inflation(self, result: SearchResult) -> None:
        """One target's score-inflation search (replacing an earlier one of the target)."""
        self.db["inflation"].upsert(
            {"target": result.target, "json": result.model_dump_json()}, pk="target"
        )

    def inflation(self) -> list[SearchResult]:
        rows = self.db.conn.execute("select target, json from inflation order by target")
        return self._rows("inflation", rows, SearchResult.model_validate_json)

    def put_inflation_score(self, target: str, key: str, score: float) -> None:
        """One target call of a search, kept so that an interrupted search resumes."""
        with self.db.atomic() as db:
            db.conn.execute(
                "insert or replace into inflation_scores values (?, ?, ?)", (target, key, score)
            )

    def inflation_scores(self, target: str) -> dict[str, float]:
        rows = self.db.query("select key, score from inflation_scores where target = ?", [target])
        return {r["key"]: r["score"] for r in rows}

    def put_comparison(self, audit: ComparisonAudit) -> None:
        """One comparative target's audit (replacing an earlier one of the target)."""
        self.db["comparisons"].upsert(
            {"target": audit.target, "json": audit.model_dump_json()}, pk="target"
        )

    def comparisons(self) -> list[ComparisonAudit]:
        """The comparison audits, by target (none in a suite written before them, which a
        read-only open leaves without the table)."""
        if not self.db["comparisons"].exists():
            return []
        rows = self.db.conn.execute("select target, json from comparisons order by target")
        return self._rows("comparisons", rows, ComparisonAudit.model_validate_json)

    def put_execution(self, record: ExecutionRecord) -> None:
        row = {
            "target": record.target,
            "case_id": record.case_id,
            "verdict": record.verdict.value,
            "json": record.model_dump_json(),
        }
        self.db["executions"].upsert(row, pk=("target", "case_id"))

    def executions(self, target: str | None = None) -> list[ExecutionRecord]:
        sql, args = "select target, case_id, json from executions", []
        if target is not None:
            sql, args = sql + " where target = ?", [target]
        rows = self.db.conn.execute(sql + " order by target, case_id", args)
        keyed = (((name, case), text) for name, case, text in rows)
        return self._rows("executions", keyed, ExecutionRecord.model_validate_json)

    # ------------------------------------------------------------ calls, errors
    def put_call(self, call: CallRecord) -> None:
        self.db.conn.execute(
            "insert into calls (key, task, json) values (?, ?, ?)",
            [call.key, call.task, call.model_dump_json()],
        )

    def calls(self) -> list[CallRecord]:
        rows = self.db.conn.execute("select id, json from calls order by id").fetchall()
        return self._rows_at_once(
            "calls",
            rows,
            lambda texts: _CALLS.validate_json("[" + ",".join(texts) + "]"),
            CallRecord.model_validate_json,
        )

    def put_transcript(self, transcript: Transcript) -> None:
        """Keep a call's transcript, its prompt once by content; past the suite's cap
        (SUITE_CAP characters of prompts and replies) it is counted as dropped instead, and
        every report says so."""
        conn = self.db.conn
        if conn.execute("select 1 from transcripts where key = ?", [transcript.key]).fetchone():
            return
        sha = transcript.prompt_sha256
        new_prompt = not conn.execute("select 1 from prompts where sha256 = ?", [sha]).fetchone()
        size = len(transcript.reply) + (len(transcript.prompt) if new_prompt else 0)
        if self._transcript_bytes is None:
            (used,) = conn.execute(
                "select coalesce((select sum(length(text)) from prompts), 0)"
                " + coalesce((select sum(length(reply)) from transcripts), 0)"
            ).fetchone()
            self._transcript_bytes = int(used)
        if self._transcript_bytes + size > SUITE_CAP:
            self._set_meta("transcripts_dropped", self.transcripts_dropped() + 1)
            return
        self._transcript_bytes += size
        with self.db.atomic() as db:
            if new_prompt:
                db.conn.execute("insert into prompts values (?, ?)", [sha, transcript.prompt])
            db.conn.execute(
                "insert into transcripts values (?, ?, ?, ?, ?, ?)",
                [transcript.key, transcript.model, transcript.task, sha, transcript.reply,
                 int(transcript.truncated)],
            )  # fmt: skip

    def transcripts(self, keys: Iterable[str] | None = None) -> dict[str, Transcript]:
        """The transcripts of ``keys`` (all, without), by key; absent keys are left out."""
        if not self.db["transcripts"].exists():  # a suite from before, opened read-only
            return {}
        sql = (
            "select t.key, t.model, t.task, p.text as prompt, t.reply, t.truncated "
            "from transcripts t join prompts p on p.sha256 = t.prompt_sha256"
        )
        if keys is None:
            rows = self.db.conn.execute(sql).fetchall()
        else:
            wanted = sorted(set(keys))
            rows = []
            for start in range(0, len(wanted), 500):  # SQLite's bound on parameters
                chunk = wanted[start : start + 500]
                marks = ",".join("?" for _ in chunk)
                rows += self.db.conn.execute(f"{sql} where t.key in ({marks})", chunk).fetchall()
        names = ("key", "model", "task", "prompt", "reply", "truncated")
        parsed = self._rows(
            "transcripts",
            ((row[0], row) for row in rows),
            lambda row: Transcript(**dict(zip(names, row, strict=True))),
        )
        return {transcript.key: transcript for transcript in parsed}

    def transcripts_dropped(self) -> int:
        return int(self._get_meta("transcripts_dropped", lambda v: int(v or 0)) or 0)

    def put_error(self, stage: str, subject: str, message: str, target: str = "") -> None:
        self.db["errors"].insert(
            {
                "stage": stage,
                "subject": subject,
                "target": target,
                "message": message,
                "created": _now(),
            }
        )

    def clear_errors(self, stage: str) -> None:
        """Errors of a stage are re-recorded when the stage runs again."""
        self.db.execute("delete from errors where stage = ?", [stage])

    def errors(self) -> list[dict[str, str]]:
        """Sorted by content, not insertion: concurrent stages log in any order."""
        order = "order by stage, subject, target, message, id"
        return [
            {k: str(v) for k, v in row.items() if k != "id"}
            for row in self.db.query(f"select * from errors {order}")
        ]

    # ----------------------------------------------------------------- snapshot
    def snapshot(self) -> SuiteSnapshot:
        targets = self.targets()
        executions = self.executions()
        estimates = self.tolerances()
        behind_faults = (
            key
            for e in executions
            if e.verdict is Verdict.fault
            for keys in e.transcripts.values()
            for key in keys
        )
        return SuiteSnapshot(
            spec=self.spec(targets),
            config=self.config(),
            created=self.created(),
            examples=self.examples(),
            capabilities=self.capabilities(),
            recipes=self.recipes(),
            alignment=self.decisions(Question.alignment),
            cases=self.cases(),
            realization=self.decisions(Question.realization),
            applicability=self.decisions(Question.applicability),
            families=self.families(),
            targets=targets,
            tolerances={t: float(e["tolerance"]) for t, e in estimates.items()},
            noise=_numbers(estimates, "noise_std"),
            tolerance_floors=_numbers(estimates, "floor"),
            spreads=_numbers(estimates, "spread"),
            spread_shares=_numbers(estimates, "spread_share"),
            levels=_numbers(estimates, "level"),
            executions=executions,
            calls=self.calls(),
            errors=self.errors(),
            qualifications=self.qualifications(),
            inflation=self.inflation(),
            comparisons=self.comparisons(),
            transcripts=self.transcripts(behind_faults),
            transcripts_dropped=self.transcripts_dropped(),
        )

    def close(self) -> None:
        self.db.conn.close()
        if self._lock is not None:
            self._lock.release()


# ------------------------------------------------------------------- rows
def _parse_rows(
    path: Path, table: str, rows: Iterable[tuple[object, P]], parse: Callable[[P], T]
) -> list[T]:
    """Each (key, payload) row's payload through `parse`: the one place where a row that is
    not what sane wrote (an edit by the sender, a bit flipped) becomes bad input naming the
    table, the row and the problem, instead of a traceback in whatever command read it."""
    parsed: list[T] = []
    for key, payload in rows:
        try:
            parsed.append(parse(payload))
        except (ValueError, TypeError, KeyError) as exc:  # pydantic's and JSON's are ValueErrors
            raise _damaged(path, table, key, exc) from None
    return parsed


def _damaged(path: Path, table: str, key: object, exc: Exception) -> InputError:
    return InputError(
        str(path), None, f"suite file damaged ({table}, row {key!r}, {_problem(exc)})"
    )


def _problem(exc: Exception) -> str:
    """A parse error in a few words: pydantic's first error and where, or the error's text."""
    if not isinstance(exc, ValidationError):
        return str(exc) or type(exc).__name__
    first = exc.errors(include_url=False)[0]
    where = ".".join(str(part) for part in first["loc"])
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"{where + ': ' if where else ''}{first['msg']}{more}"


def _vote_row(row: dict[str, Any]) -> dict[str, Any]:
    """A votes row as a Vote's fields: its transcript keys are stored as JSON text."""
    return row | {"transcripts": json.loads(row.get("transcripts") or "[]")}


def _numbers(estimates: dict[str, dict[str, Any]], key: str) -> dict[str, float]:
    """target -> the stored tolerance estimates' ``key``, where it is a number >= 0 (an old
    or hand-edited suite may lack it: such a target is left out, never given a default)."""
    out = {}
    for target, estimate in estimates.items():
        value = estimate.get(key)
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if number and math.isfinite(value) and value >= 0:
            out[target] = float(value)
    return out


def _tolerance_estimate(text: str) -> dict[str, Any]:
    """A stored tolerance estimate, checked for the number every reader takes from it."""
    estimate = _OBJECT.validate_json(text)
    tolerance = estimate.get("tolerance")
    if isinstance(tolerance, bool) or not isinstance(tolerance, int | float):
        raise TypeError(f"tolerance: not a number ({tolerance!r})")
    return estimate


# ------------------------------------------------------------------ schema
def _build_schema(db: sqlite_utils.Database, *, create: bool) -> None:
    """Every table, column and trigger of a suite: all of them in a new one (`create`); in an
    existing one, those that suites written by an earlier sane lack. The schema a received
    suite is checked against (`_expected_schema`) is built here too, so it has one source."""
    if create:
        _create_tables(db)
    # suites written before targets were frozen into them, or before review
    # decisions could be applied, gain these tables here
    db["targets"].create({"name": str, "seq": int, "json": str}, pk="name", if_not_exists=True)
    db["review_overrides"].create(
        {"subject_id": str, "question": str, "decision": str, "source": str, "applied": str},
        pk=("subject_id", "question"),
        if_not_exists=True,
    )
    db[HUMAN_LABELS].create(  # sane.review._labels: reviewers' labels, kept with the suite
        {"subject_id": str, "question": str, "label": str, "reviewer": str, "note": str,
         "source": str, "imported": str},
        pk=("subject_id", "question"),
        if_not_exists=True,
    )  # fmt: skip
    # a comparative target's audit (sane.pairwise), one row per target
    db["comparisons"].create({"target": str, "json": str}, pk="target", if_not_exists=True)
    _transcript_tables(db)
    _keep_revision(db)


def _create_tables(db: sqlite_utils.Database) -> None:
    """The tables of a new suite."""
    # The meta table is born with its schema version in one transaction, so a run
    # killed here never leaves a file that a rerun would refuse as "not a suite".
    db.conn.executescript(
        "BEGIN; CREATE TABLE IF NOT EXISTS [meta] ([key] TEXT PRIMARY KEY, [value] TEXT); "
        f"INSERT OR IGNORE INTO [meta] VALUES ('schema_version', '{SCHEMA_VERSION}'); COMMIT;"
    )
    db["capabilities"].create({"id": str, "seq": int, "json": str}, pk="id", if_not_exists=True)
    db["recipes"].create({"id": str, "seq": int, "json": str}, pk="id", if_not_exists=True)
    db["cases"].create(
        {"id": str, "recipe_id": str, "idx": int, "json": str}, pk="id", if_not_exists=True
    )
    db["votes"].create(
        {
            "subject_id": str,
            "question": str,
            "sample_index": int,
            "model": str,
            "decision": str,
            "rationale": str,
            "raw": str,
            "error": str,
        },
        pk=("subject_id", "question", "sample_index"),
        if_not_exists=True,
    )
    db["decisions"].create(
        {"subject_id": str, "question": str, "decision": str},
        pk=("subject_id", "question"),
        if_not_exists=True,
    )
    db["families"].create({"recipe_id": str, "json": str}, pk="recipe_id", if_not_exists=True)
    db["tolerances"].create({"target": str, "json": str}, pk="target", if_not_exists=True)
    db["inflation"].create({"target": str, "json": str}, pk="target", if_not_exists=True)
    db["inflation_scores"].create(
        {"target": str, "key": str, "score": float}, pk=("target", "key"), if_not_exists=True
    )
    db["executions"].create(
        {"target": str, "case_id": str, "verdict": str, "json": str},
        pk=("target", "case_id"),
        if_not_exists=True,
    )
    db["calls"].create(
        {"id": int, "key": str, "task": str, "json": str}, pk="id", if_not_exists=True
    )
    db["errors"].create(
        {
            "id": int,
            "stage": str,
            "subject": str,
            "target": str,
            "message": str,
            "created": str,
        },
        pk="id",
        if_not_exists=True,
    )


def _transcript_tables(db: sqlite_utils.Database) -> None:
    """Transcripts (sane.llm._transcripts): one row per call key, its prompt text kept
    once by hash. Suites from before gain the tables, and the votes their column."""
    db["prompts"].create({"sha256": str, "text": str}, pk="sha256", if_not_exists=True)
    db["transcripts"].create(
        {"key": str, "model": str, "task": str, "prompt_sha256": str, "reply": str,
         "truncated": int},
        pk="key",
        if_not_exists=True,
    )  # fmt: skip
    if "transcripts" not in db["votes"].columns_dict:
        db.execute("alter table votes add column transcripts text")
    if "seed" not in db["votes"].columns_dict:  # each vote's own sampling seed (panel)
        db.execute("alter table votes add column seed integer")


def _keep_revision(db: sqlite_utils.Database) -> None:
    """Count every write to the tables a report reads, in the write's own transaction."""
    db.execute("insert or ignore into meta values ('revision', '0')")
    bump = "update meta set value = cast(cast(value as integer) + 1 as text) where key = 'revision'"
    for table in REVISED_TABLES:
        if not db[table].exists():
            continue
        for event in ("insert", "update", "delete"):
            db.execute(
                f"create trigger if not exists [revise_{table}_{event}] after {event} "
                f"on [{table}] begin {bump}; end"
            )


# SQLite's own tables (AUTOINCREMENT's counters, ANALYZE's statistics): SQLite makes them, and
# they run nothing
_SQLITE_TABLES = frozenset({"sqlite_sequence", "sqlite_stat1", "sqlite_stat4"})
_AUTOINDEX = "sqlite_autoindex_"  # the index SQLite makes for a table's key
_LISTED = 5  # schema objects named in a refusal, at most

SchemaObject = tuple[str, str, str | None]  # type, the table it belongs to, its SQL text


def _schema(conn: sqlite3.Connection) -> dict[str, SchemaObject]:
    """The schema objects of a database (tables, indexes, triggers, views), by name."""
    rows = conn.execute("select type, name, tbl_name, sql from sqlite_master")
    return {name: (kind, table, sql) for kind, name, table, sql in rows}


@cache
def _expected_schema() -> dict[str, SchemaObject]:
    """The schema objects sane makes: a new suite's, built in memory by the code that builds
    one on disk."""
    import sqlite_utils

    db = sqlite_utils.Database(memory=True)
    _build_schema(db, create=True)
    return _schema(db.conn)


def _foreign_objects(found: dict[str, SchemaObject]) -> list[str]:
    """What in a suite's schema sane did not make, one phrase each. A received suite is
    someone else's file, and SQLite runs the SQL its schema holds: a trigger on this
    machine's writes (every verdict rewritten to pass), a view in a table's place on every
    read (a recursive one never ends), an index's expressions on every write. So triggers,
    views and indexes must be sane's own, SQL text and all; tables are compared by name and
    type only (a table runs nothing, and its text varies with the sqlite-utils that wrote it
    and the columns an older suite lacks)."""
    expected = _expected_schema()
    problems: list[str] = []
    for name, (kind, table, sql) in sorted(found.items()):
        want = expected.get(name)
        if want is None:
            if not _sqlite_own(name, kind, sql):
                problems.append(f"unknown {kind} {name!r}")
        elif want[0] != kind:
            problems.append(f"{name!r} is a {kind}, not a {want[0]}")
        elif want[1] != table or (kind != "table" and want[2] != sql):
            problems.append(f"altered {kind} {name!r}")
    return problems


def _sqlite_own(name: str, kind: str, sql: str | None) -> bool:
    """Whether an object not in sane's schema is one SQLite makes by itself."""
    if kind == "table":
        return name in _SQLITE_TABLES
    return kind == "index" and name.startswith(_AUTOINDEX) and sql is None


def _refuse_foreign_schema(path: Path, found: dict[str, SchemaObject]) -> None:
    """Refuse, before anything reads a table, a suite whose schema sane did not make."""
    problems = _foreign_objects(found)
    if not problems:
        return
    listed = ", ".join(problems[:_LISTED])
    if len(problems) > _LISTED:
        listed += f" and {len(problems) - _LISTED} more"
    raise InputError(
        str(path),
        None,
        f"suite file holds schema objects sane does not make ({listed}): a suite may not "
        "bring SQL of its own; not opened",
    )


def read_stored_report(path: str | Path, code: str) -> dict | None:
    """The report stored at the end of the suite's last run (`SuiteStore.save_report`) if
    the suite has not changed since (its revision) and the same code built it; None
    otherwise: the report must be built. Read with sqlite3 alone (no store, no sqlite-utils),
    so `sane report` and `sane check` start fast."""
    path = Path(path)
    _check_is_suite(path)
    conn = sqlite3.connect(_readonly_uri(path), uri=True)
    try:
        rows = conn.execute(
            "select key, value from meta where key in ('report', 'revision')"
        ).fetchall()
    finally:
        conn.close()
    parsed = _parse_rows(path, "meta", rows, json.loads)
    values = {key: value for (key, _), value in zip(rows, parsed, strict=True)}
    stored, revision = values.get("report"), values.get("revision")
    if not isinstance(stored, dict) or stored.get("code") != code or revision is None:
        return None
    if stored.get("revision") != int(revision):
        return None
    report = stored.get("report")
    return report if isinstance(report, dict) else None


def _readonly_uri(path: Path) -> str:
    """A read-only SQLite URI; `immutable` where the folder cannot take the WAL's shared-memory
    file (a read-only folder), which SQLite otherwise needs even to read."""
    uri = f"{path.resolve().as_uri()}?mode=ro"
    if os.access(path.parent, os.W_OK):
        return uri
    wal = Path(f"{path}-wal")
    if wal.exists() and wal.stat().st_size > 0:
        raise InputError(
            str(path),
            None,
            "the suite's folder is read-only and its write-ahead log still holds data that "
            "only a writable folder can read; copy the folder somewhere writable",
        )
    return uri + "&immutable=1"


def _check_is_suite(path: Path, *, blank_ok: bool = False, integrity: bool = False) -> None:
    """Refuse a file that is missing, not SQLite, not a suite, from a newer schema, holding
    schema objects sane does not make (`_foreign_objects`), or (with `integrity`, before a run
    writes to it) damaged: writing into a damaged file spreads the damage, so it is refused
    untouched and the user restores or regenerates it. Only `sqlite_master` and the `meta`
    table are read before the schema is known to be sane's own.

    With `blank_ok` (creating a suite) an empty file or an SQLite file without any
    table is accepted as new: a run killed before its first table leaves one.
    """
    if not path.is_file():
        raise InputError(
            str(path), None, "suite file not found" if not path.exists() else "not a file"
        )
    if blank_ok and path.stat().st_size == 0:
        return
    try:
        conn = sqlite3.connect(_readonly_uri(path), uri=True)
        try:
            tables = _schema(conn)
            row = None
            if tables.get("meta", ("",))[0] == "table":  # a view of that name is never read
                query = "select value from meta where key = 'schema_version'"
                row = conn.execute(query).fetchone()
            damage = conn.execute("PRAGMA quick_check").fetchone()[0] if integrity else "ok"
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        if "malformed" in str(exc) or "corrupt" in str(exc):
            raise InputError(
                str(path), None, f"suite file is damaged ({exc}); not touched"
            ) from None
        raise InputError(str(path), None, "not a sane suite (not an SQLite suite file)") from None
    if damage != "ok":
        first = next((line for line in damage.splitlines() if "***" not in line), damage)
        raise InputError(
            str(path), None, f"suite file is damaged (quick_check: {first.strip()}); not touched"
        )
    if blank_ok and not tables:
        return
    if row is None:
        raise InputError(str(path), "schema_version", "not a sane suite (no schema version)")
    try:
        version = json.loads(row[0])
    except (TypeError, ValueError):
        version = row[0]
    if not isinstance(version, int) or version > SCHEMA_VERSION:
        raise InputError(
            str(path),
            "schema_version",
            f"suite schema version {version} is newer than this sane supports ({SCHEMA_VERSION})",
        )
    _refuse_foreign_schema(path, tables)
