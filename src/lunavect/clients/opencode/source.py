"""The OpenCode source: its database, read incrementally, as evidence for the collector (plugin or not).

Each poll first asks whether the client committed anything (the database's and its log's sizes and times);
if not, it reads nothing. Otherwise it reads the sessions whose row changed since the last poll (by their
`time_updated`, a few seconds' margin for rows committed late), and for each session that changed, or that the
collector holds live (a running tool's part changes without its session's row), its latest turn (turns.py) and
its tokens (usage.py). The first poll lists every session, newest first, within a time budget per poll: the
rest follow at once on the next polls (`backlog`). Child sessions (a `task` tool's sub-agents) are internal:
never rows, their tokens their root session's. The complete list of root sessions is handed over now and
then, as a client's catalog (a hidden session leaves the hidden list once its client stops listing it).

The cursor lives in memory: a collector started again reads every session's latest turn once more, each fact
with the id it had, so nothing is stored twice. It moves only when the collector commits what a poll found
(`Batch.commit`): a poll that fails, or whose batch is not stored, leaves every session to be read again.

One session that cannot be read costs that session, never the source: it is set aside until its row changes
(recorded for `lunavect doctor`, as a transcript a reader failed on is), and every other session is read as
usual. A database that is locked or unreadable as a whole fails the poll, and the next one tries again.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from lunavect.clients.opencode import places
from lunavect.clients.opencode.database import Database, SessionRow
from lunavect.clients.opencode.turns import latest_turn, meta
from lunavect.clients.opencode.usage import SessionTokens, session_tokens
from lunavect.core.clients import OPENCODE
from lunavect.core.model import Evidence, session_key
from lunavect.evidence.sources import Batch, Known, NothingKnown, Source
from lunavect.files.changed import ChangedFiles
from lunavect.files.quarantine import Quarantine, describe

# Rows are read again this far behind the newest time seen: a row committed a moment late is not missed.
MARGIN_MS = 5000
# Reading sessions stops for this poll after this long; the rest is read on the next ones.
READ_BUDGET_S = 0.25
# The complete list of sessions is handed over this often.
LISTING_INTERVAL_S = 300.0
# What fails the whole database rather than one session's read: the poll fails, and the next one tries again.
_WHOLE_DATABASE = ("SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_IOERR", "SQLITE_CORRUPT", "SQLITE_NOTADB", "SQLITE_CANTOPEN")


class OpenCodeSource(Source):
    """Evidence about OpenCode sessions from OpenCode's own database."""

    name = OPENCODE.id

    def __init__(self, database: Path | None = None, data_dir: Path | None = None) -> None:
        self.path = database if database is not None else places.database_path()
        self.db = Database(self.path) if self.path is not None else None
        self.changes = ChangedFiles(data_dir if data_dir is not None else places.data_dir())
        self.known: Known = NothingKnown()
        self.sessions: dict[str, SessionRow] = {}
        self.cursor_ms = -1
        self.signature: tuple | None = None
        self.pending: dict[str, None] = {}  # root sessions not read yet since the collector started, newest first
        self.internal: set[str] = set()  # child sessions already handed over as internal
        self.listed_at: float | None = None
        # Sessions whose read failed, with the row time they failed at: skipped until their row changes.
        self.aside: dict[str, tuple[int, str]] = {}
        self.quarantine = Quarantine(f"{OPENCODE.id}.sessions")

    def _root(self, session: str, sessions: dict[str, SessionRow]) -> str:
        current = session
        for _hop in range(16):
            row = sessions.get(current)
            if row is None or row.parent is None:
                return current
            current = row.parent
        return current

    def poll(self, conn: sqlite3.Connection, now: float) -> Batch:
        batch = Batch()
        db = self.db
        if db is None:
            return batch
        self.changes.take()  # the watch only wakes a collector at rest: what changed is the database's signature
        signature = db.signature()
        clock = time.monotonic()
        listing_due = self.listed_at is None or clock - self.listed_at >= LISTING_INTERVAL_S
        if signature is None or (signature == self.signature and not self.pending and not listing_due):
            return batch
        first = self.cursor_ms < 0
        rows = db.sessions(self.cursor_ms - MARGIN_MS if not first else -1)
        # What this poll learns is kept aside and made the source's own only in `commit`.
        sessions = {**self.sessions, **{row.id: row for row in rows}}
        cursor_ms = max([self.cursor_ms, *(row.updated_ms for row in rows)])
        changed = {self._root(row.id, sessions) for row in rows}
        pending = self.pending
        if first:
            roots = [r for r in sessions.values() if r.parent is None]
            pending = dict.fromkeys(r.id for r in sorted(roots, key=lambda r: r.updated_ms, reverse=True))
            changed = set()
        for row in sessions.values():
            key = session_key(OPENCODE.id, row.id)
            if row.parent is not None and key not in self.internal:
                batch.internal.add(key)
        hot = {sid for sid in sessions if self.known.live(session_key(OPENCODE.id, sid))}
        usages: list[SessionTokens] = []
        aside = dict(self.aside)
        done: list[str] = []
        deadline = clock + READ_BUDGET_S
        for session in dict.fromkeys([*sorted(changed | hot), *pending]):
            if time.monotonic() > deadline:
                break
            done.append(session)
            found = sessions.get(session)
            if found is None or found.parent is not None:
                continue
            held = aside.get(session)
            if held is not None and held[0] == found.updated_ms:
                continue  # set aside, and unchanged since
            # Tokens change only with a message, which touches its session's row: a live session read for its
            # running tool's parts keeps its tokens until then.
            try:
                evidence, usage = self._read(db, found, now, tokens=session in pending or session in changed)
            except sqlite3.Error as exc:
                if getattr(exc, "sqlite_errorname", None) in _WHOLE_DATABASE:
                    raise
                aside[session] = (found.updated_ms, describe(exc))
                continue
            aside.pop(session, None)
            batch.evidence += evidence
            usages += [usage] if usage is not None else []
        left = [sid for sid in pending if sid not in done]
        if left:
            batch.backlog = "listing"
        if listing_due and not left:
            batch.complete_listing = (OPENCODE.id, [session_key(OPENCODE.id, s) for s in db.root_ids()])
        reported = set(batch.internal)
        failing = {f"{sid} in {db.path.name}": error for sid, (_ms, error) in aside.items()}

        def commit(conn: sqlite3.Connection) -> None:
            for usage in usages:
                usage.save(conn)
            self.quarantine.note(failing, now)
            self.quarantine.save(conn)
            self.internal |= reported
            self.sessions, self.cursor_ms, self.signature, self.aside = sessions, cursor_ms, signature, aside
            self.pending = dict.fromkeys(left)
            if batch.complete_listing is not None:
                self.listed_at = clock

        batch.commit = commit
        return batch

    def _read(
        self, db: Database, row: SessionRow, now: float, *, tokens: bool
    ) -> tuple[list[tuple[str, Evidence]], SessionTokens | None]:
        """One session's evidence and, with `tokens`, its tokens; sqlite3.Error when it cannot be read."""
        evidence: list[tuple[str, Evidence]] = []
        described = meta(row)
        if described is not None:
            evidence.append(described)
        messages = db.latest_messages(row.id)
        evidence += latest_turn(row.id, messages, db.parts([m.id for m in messages]))
        if not tokens:
            return evidence, None
        key = session_key(OPENCODE.id, row.id)
        family = db.family(row.id)
        return evidence, session_tokens(key, f"{self.path}#{row.id}", row.id, db.assistant_messages(family), now)

    def attach(self, known: Known) -> None:
        self.known = known

    def wake_with(self, wake: Callable[[], None]) -> None:
        self.changes.listen(wake)

    def close(self) -> None:
        self.changes.close()
        if self.db is not None:
            self.db.close()
