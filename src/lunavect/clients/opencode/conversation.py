"""OpenCode's conversation as it shows it, read from its database on demand (`lunavect show`, the peeks): shown,
never kept.

OpenCode keeps no file per session: each message's parts are rows of one database (database.py). A session's
newest parts are read as a stream of records, each a JSON line with the part and its message's role, and a
failed or interrupted reply as one record of its own; a record's place is its row's creation time (in
milliseconds, with its rank within that millisecond), so a message keeps its place while the session grows.
Only what a viewer shows is read, cut short in SQL. The parser turns each record into what a viewer shows: the person's prompts, the assistant's text, each tool
call with a one-line summary of its input and its shortened result, a compaction, an error or an interruption.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lunavect.clients.opencode import places
from lunavect.clients.opencode.database import Database, field, seconds
from lunavect.conversation.message import RESULT_CHARS, TEXT_CHARS, Kind, Message, one_line, shorten
from lunavect.conversation.parts import Part, place
from lunavect.conversation.source import Source
from lunavect.conversation.window_parts import Unreadable
from lunavect.core.clients import OPENCODE
from lunavect.core.ids import is_session_id
from lunavect.core.times import iso

# The newest parts a conversation is read from: a window shows the last of them, however long the session.
MAX_PARTS = 2000
# The input fields that say what a tool call does, for its one-line summary, first found first.
_INPUT_FIELDS = ("command", "filePath", "path", "pattern", "query", "url", "description", "prompt")


def _cut(path: str, chars: int) -> str:
    return f"substr({field('p.data', path)}, 1, {chars})"


def _p(path: str) -> str:
    return field("p.data", path)


_INPUTS = ", ".join(_p(f"$.state.input.{key}") for key in _INPUT_FIELDS)
# Each part as a flat record of what a viewer shows, cut in SQL: a long text, a tool's output, a file's content
# in a tool's input never leave the database whole. Every field is read through `database.field`: one part
# SQLite cannot parse is a part without fields, never a conversation that cannot be read.
_PARTS = (
    "SELECT p.time_created, json_object("
    f"'role', {field('m.data', '$.role')}, 'type', {_p('$.type')}, "
    f"'text', {_cut('$.text', TEXT_CHARS + 1)}, 'synthetic', {_p('$.synthetic')}, "
    f"'tool', {_p('$.tool')}, 'call', {_p('$.callID')}, "
    f"'status', {_p('$.state.status')}, "
    f"'summary', substr(coalesce({_INPUTS}), 1, 1000), "
    f"'output', {_cut('$.state.output', RESULT_CHARS + 1)}, 'error', {_cut('$.state.error', RESULT_CHARS + 1)}, "
    f"'start', coalesce({_p('$.state.time.start')}, {_p('$.time.start')})) "
    "FROM part p JOIN message m ON m.id = p.message_id WHERE p.session_id = ? "
    f"AND {_p('$.type')} IN ('text', 'tool', 'compaction') "
    "ORDER BY p.time_created DESC, p.id DESC LIMIT ?"
)
_FAILURES = (
    f"SELECT coalesce({field('data', '$.time.completed')}, time_created), json_object("
    f"'failure', {field('data', '$.error.name')}, "
    f"'text', substr({field('data', '$.error.data.message')}, 1, {RESULT_CHARS + 1})) "
    f"FROM message WHERE session_id = ? AND {field('data', '$.error')} IS NOT NULL AND time_created >= ?"
)


def _records(database: Path, session: str) -> Iterator[tuple[int, int, bytes | None]]:
    db = Database(database)
    try:
        conn = db.connection()
        parts = conn.execute(_PARTS, (session, MAX_PARTS)).fetchall()
        oldest = parts[-1][0] if parts else 0
        failures = conn.execute(_FAILURES, (session, oldest)).fetchall()
    except (OSError, sqlite3.Error) as exc:
        raise Unreadable(f"cannot read {database}: {exc}") from None
    finally:
        db.close()
    rows = sorted(
        ((at, line.encode()) for at, line in (*parts, *failures) if isinstance(at, int) and isinstance(line, str)),
        key=lambda row: row[0],
    )
    last, rank = None, 0
    for created, line in rows:
        rank = rank + 1 if created == last else 0
        last = created
        offset = created * 1000 + min(rank, 999)
        yield offset, offset + 1, line


def _str(record: dict, key: str) -> str | None:
    value = record.get(key)
    return value if isinstance(value, str) and value.strip() else None


def parts(record: Any, offset: int, *, sidechain: bool = False) -> list[Part]:
    """The parts one record shows (`sidechain` is never asked: a child session is a session of its own)."""
    if not isinstance(record, dict):
        return []
    here = place(offset, 0)
    at = iso(seconds(record.get("start")))
    text = _str(record, "text")
    failure = _str(record, "failure")
    if failure == "MessageAbortedError":
        return [Message(here, Kind.TASK, "Turn interrupted")]
    if failure is not None:
        return [Message(here, Kind.ERROR, "Turn failed" + (f": {one_line(text, RESULT_CHARS)}" if text else ""))]
    kind = record.get("type")
    if kind == "text" and text and not record.get("synthetic"):
        return [
            Message(here, Kind.PROMPT if record.get("role") == "user" else Kind.TEXT, shorten(text, TEXT_CHARS), at=at)
        ]
    tool = _str(record, "tool")
    if kind == "tool" and tool:
        status = record.get("status")
        result = _str(record, "output" if status == "completed" else "error")
        summary = _str(record, "summary")
        return [
            Message(
                here,
                Kind.TOOL,
                one_line(summary) if summary else "",
                tool=tool,
                call_id=_str(record, "call"),
                result=shorten(result, RESULT_CHARS) if result and status in ("completed", "error") else None,
                failed=status == "error",
                at=at,
            )
        ]
    if kind == "compaction":
        return [Message(here, Kind.COMPACTION, "Context compacted", at=at)]
    return []


def conversation_of(database: Path, session: str) -> Source:
    db = Database(database)
    return Source(database, OPENCODE.id, parts, records=lambda: _records(database, session), signature=db.signature)


def find_conversation(session_id: str, conn: sqlite3.Connection | None = None) -> Source | None:
    """The database rows a session's conversation is read from, or None when this machine holds no such
    session (or `session_id` is no id)."""
    database = places.database_path()
    if not is_session_id(session_id) or database is None or not database.is_file():
        return None
    db = Database(database)
    try:
        found = db.connection().execute("SELECT 1 FROM session WHERE id = ?", (session_id,)).fetchone()
    except (OSError, sqlite3.Error):
        return None
    finally:
        db.close()
    return conversation_of(database, session_id) if found else None


def conversation_at(path: Path) -> Source:
    raise ValueError(f"{OPENCODE.name} keeps every session's conversation in one database ({path}): name the session")
