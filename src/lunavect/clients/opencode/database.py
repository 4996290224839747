"""OpenCode's database (SQLite, WAL), read-only and without ever holding up the client's writes.

OpenCode 1.18.33 keeps every session in one database (places.py): `session` (id `ses_…`, its parent for a
sub-agent's child session, folder, title, version, times in milliseconds), `message` (its `data` the message
without its ids: role, times, finish, error, tokens, model) and `part` (text, reasoning, tool calls with their
state, compaction, step marks). Busy, retrying and a pending permission or question live only in the client's
memory: the plugin's events tell them.

Opened as `mode=ro` with a short busy timeout; every read is a plain SELECT, consumed whole, so no read
transaction outlives its statement and no write transaction is ever begun (a WAL reader never blocks the
writer). Only the fields lunavect uses are extracted, in SQL (`json_extract`): a tool's input and output, a
message's text never leave the database for these reads. Each value from it is checked once here: ids by
pattern, times within bounds (milliseconds to seconds), counts as counts, names cut short.

One bad row costs that row, never the statement (and with it every session of the client): SQLite fails a
whole statement whose `json_extract` meets one `data` it cannot parse (a part nested 2,000 deep, which a
model's tool input can be), so every field is extracted only from a `data` that `json_valid` accepts
(`field`); and a lone surrogate escape (`"\\ud83d"`, what `JSON.stringify` writes for a string cut inside an
emoji) extracts as bytes that are no UTF-8, which are decoded leniently rather than failing the read.

The database's path is a variable's to name (`OPENCODE_DB`), so it may lie where another user can place
something: it is opened only when it (and its log and index, when present) is a regular file of this user's
(`files.ownership`); a FIFO there would block the open, and the collector with it, for good.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from lunavect.core.bounds import bounded, count, http_status, real
from lunavect.core.ids import is_session_id
from lunavect.files import ownership

# A read waits at most this long for a lock (a WAL reader waits only while the client recovers the log).
BUSY_TIMEOUT_S = 0.1
# The newest messages of a session its latest turn is looked for among.
TURN_MESSAGES = 24
MAX_NAME = 64
MAX_TEXT = 300
MAX_PATH = 4096


def field(column: str, path: str) -> str:
    """SQL for the value at `path` in the JSON of `column`, NULL where that JSON is not valid (too deep, cut
    short): one such row then reads as a row without the field instead of failing its whole statement."""
    return f"json_extract(iif(json_valid({column}), {column}, NULL), '{path}')"


def _lenient(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def seconds(value: object) -> float | None:
    """A time the database writes in milliseconds, in seconds; None when it is no believable time."""
    ms = real(value)
    return bounded(ms / 1000.0) if ms is not None else None


def _name(value: object) -> str | None:
    return value if isinstance(value, str) and 0 < len(value) <= MAX_NAME else None


def _text(value: object, limit: int = MAX_TEXT) -> str | None:
    return value if isinstance(value, str) and 0 < len(value) <= limit else None


def _id(value: object) -> str | None:
    return value if is_session_id(value) else None  # type: ignore[return-value]


@dataclass(frozen=True)
class SessionRow:
    id: str
    parent: str | None
    folder: str | None
    title: str | None
    version: str | None
    created: float | None
    updated: float | None
    updated_ms: int


@dataclass(frozen=True)
class MessageRow:
    id: str
    session: str
    role: str | None
    created: float | None
    completed: float | None
    finish: str | None
    error: str | None
    status: int | None  # an API error's HTTP status
    summary: bool  # a compaction's summary
    model: str | None
    tokens: tuple[int, int, int, int]  # input, output (reasoning included), cache read, cache write


@dataclass(frozen=True)
class PartRow:
    id: str
    message: str
    kind: str | None  # tool | compaction
    tool: str | None
    call: str | None
    status: str | None  # pending | running | completed | error
    started: float | None
    ended: float | None
    created: float | None
    auto: bool  # an automatic compaction
    refused: bool  # a tool the person refused (a permission rejected, a question dismissed)


# OpenCode's own words for a tool call the person refused (1.18.33): its loop stops there.
_REFUSALS = ("The user rejected permission", "The user dismissed this question")

_SESSIONS = (
    "SELECT id, parent_id, directory, title, version, time_created, time_updated FROM session WHERE time_updated > ?"
)
_MESSAGE_PATHS = (
    "$.role", "$.time.created", "$.time.completed", "$.finish", "$.error.name", "$.error.data.statusCode",
    "$.summary", "$.modelID", "$.tokens.input", "$.tokens.output", "$.tokens.reasoning", "$.tokens.cache.read",
    "$.tokens.cache.write",
)  # fmt: skip
_MESSAGE_FIELDS = ", ".join(["id", "session_id", *(field("data", path) for path in _MESSAGE_PATHS)])
_PART_FIELDS = ", ".join(
    [
        "id", "message_id", *(field("data", p) for p in ("$.type", "$.tool", "$.callID", "$.state.status")),
        field("data", "$.state.time.start"), field("data", "$.state.time.end"), "time_created",
        field("data", "$.auto"), f"substr({field('data', '$.state.error')}, 1, {max(len(r) for r in _REFUSALS)})",
    ]
)  # fmt: skip


def _session(row: Sequence[object]) -> SessionRow | None:
    sid = _id(row[0])
    updated_ms = row[6]
    if sid is None or not isinstance(updated_ms, int):
        return None
    return SessionRow(
        sid, _id(row[1]), _text(row[2], MAX_PATH), _text(row[3]), _name(row[4]), seconds(row[5]), seconds(updated_ms),
        updated_ms,
    )  # fmt: skip


def _message(row: Sequence[object]) -> MessageRow | None:
    mid, sid = _id(row[0]), _id(row[1])
    if mid is None or sid is None:
        return None
    output = count(row[11]) + count(row[12])
    return MessageRow(
        mid, sid, _name(row[2]), seconds(row[3]), seconds(row[4]), _name(row[5]), _name(row[6]), http_status(row[7]),
        row[8] in (1, True), _name(row[9]), (count(row[10]), output, count(row[13]), count(row[14])),
    )  # fmt: skip


def _part(row: Sequence[object]) -> PartRow | None:
    pid, mid = _id(row[0]), _id(row[1])
    if pid is None or mid is None:
        return None
    error = row[10]
    return PartRow(
        pid, mid, _name(row[2]), _name(row[3]), _id(row[4]), _name(row[5]), seconds(row[6]), seconds(row[7]),
        seconds(row[8]), row[9] in (1, True), isinstance(error, str) and error.startswith(_REFUSALS),
    )  # fmt: skip


def _kept(rows: Iterable[Sequence[object]], make) -> list:  # noqa: ANN001 - one of the row makers above
    return [made for row in rows if (made := make(row)) is not None]


class Database:
    """One OpenCode database, opened read-only when first read and again whenever its file was replaced."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn: sqlite3.Connection | None = None
        self._inode: int | None = None

    def signature(self) -> tuple | None:
        """What changes whenever the client commits (the database file and its write-ahead log), or None when
        there is no database."""
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        try:
            wal = os.stat(f"{self.path}-wal")
            log: tuple = (wal.st_ino, wal.st_size, wal.st_mtime_ns)
        except OSError:
            log = ()
        return (st.st_ino, st.st_size, st.st_mtime_ns, *log)

    def connection(self) -> sqlite3.Connection:
        """The read-only connection (sqlite3.Error when the file cannot be opened as a database; OSError, and
        `ownership.NotMine` among them, when it is no regular file of this user's)."""
        inode = os.stat(self.path).st_ino
        if self._conn is not None and inode == self._inode:
            return self._conn
        self.close()
        ownership.require_mine(self.path, ownership.FILE)
        for side in ("-wal", "-shm"):  # SQLite opens them too, when they are there
            if os.path.lexists(f"{self.path}{side}"):
                ownership.require_mine(f"{self.path}{side}", ownership.FILE)
        uri = f"file:{quote(str(self.path))}?mode=ro"
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
        conn.text_factory = _lenient
        conn.execute("PRAGMA query_only = 1")
        self._conn, self._inode = conn, inode
        return conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
        self._conn = self._inode = None

    # -- reads -----------------------------------------------------------------------------------------------

    def sessions(self, since_ms: int = -1) -> list[SessionRow]:
        """Every session updated after `since_ms` (its row's own `time_updated`)."""
        return _kept(self.connection().execute(_SESSIONS, (since_ms,)).fetchall(), _session)

    def root_ids(self) -> list[str]:
        """Every session that is no sub-agent's: the client's complete list."""
        rows = self.connection().execute("SELECT id FROM session WHERE parent_id IS NULL").fetchall()
        return [row[0] for row in rows if is_session_id(row[0])]

    def latest_messages(self, session: str, limit: int = TURN_MESSAGES) -> list[MessageRow]:
        """A session's newest messages, oldest first."""
        rows = self.connection().execute(
            f"SELECT {_MESSAGE_FIELDS} FROM message WHERE session_id = ? ORDER BY time_created DESC, id DESC LIMIT ?",  # noqa: S608
            (session, limit),
        )
        return list(reversed(_kept(rows.fetchall(), _message)))

    def parts(self, messages: Sequence[str]) -> list[PartRow]:
        """The tool calls and compactions of these messages, in the order they were made."""
        rows = self._among(
            f"SELECT {_PART_FIELDS} FROM part WHERE message_id",
            messages,
            f"AND {field('data', '$.type')} IN ('tool', 'compaction') ORDER BY id",
        )
        return _kept(rows, _part)

    def family(self, session: str) -> list[str]:
        """A session and every session under it (its sub-agents', and theirs)."""
        rows = self.connection().execute(
            "WITH RECURSIVE tree(id) AS (SELECT ? UNION SELECT s.id FROM session s JOIN tree t ON s.parent_id = t.id) "
            "SELECT id FROM tree",
            (session,),
        )
        return [row[0] for row in rows.fetchall() if is_session_id(row[0])]

    def assistant_messages(self, sessions: Sequence[str]) -> list[MessageRow]:
        """Every assistant message of these sessions (their tokens), oldest first."""
        rows = self._among(
            f"SELECT {_MESSAGE_FIELDS} FROM message WHERE session_id",
            sessions,
            f"AND {field('data', '$.role')} = 'assistant' ORDER BY time_created, id",
        )
        return _kept(rows, _message)

    def _among(self, select: str, ids: Sequence[str], rest: str) -> list[tuple]:
        """The rows of `select` whose column (its last word) is one of `ids`, then `rest`: one placeholder an id,
        never an id in the SQL; no query at all for no ids."""
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        query = f"{select} IN ({marks}) {rest}"  # noqa: S608 - placeholders only
        return self.connection().execute(query, tuple(ids)).fetchall()
