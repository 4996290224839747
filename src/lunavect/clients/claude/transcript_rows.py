"""What the store keeps of each Claude Code transcript: its cursor, its summary, its background-work
observations and its usage, written inside the collector's transaction.

Kept apart from reading (transcript_read.py) because the rows outlive every read: the next read starts from
the stored cursor and summary, and `lunavect` front ends ask the rows (not the files) which background work
a session runs.
"""

from __future__ import annotations

import sqlite3

import msgspec

from lunavect.clients.claude import agents
from lunavect.clients.claude.file_read import FileRead
from lunavect.clients.claude.latest import PROVIDER
from lunavect.clients.claude.summary import TranscriptSummary
from lunavect.clients.claude.transcript import Cursor
from lunavect.core.model import session_key
from lunavect.usage import ledger

_cursor_encoder = msgspec.json.Encoder()
_cursor_decoder = msgspec.json.Decoder(Cursor)
_summary_decoder = msgspec.json.Decoder(TranscriptSummary)


def stored_cursors(conn: sqlite3.Connection) -> dict[str, tuple[str, Cursor]]:
    """Every stored cursor by path, with its session id; an unreadable one is left out (read again from the start)."""
    stored: dict[str, tuple[str, Cursor]] = {}
    for path, session_id, cursor in conn.execute("SELECT path, session_id, cursor FROM claude_transcript"):
        try:
            stored[path] = (session_id, _cursor_decoder.decode(cursor))
        except msgspec.DecodeError:
            continue  # read again from the start
    return stored


def stored_summary(conn: sqlite3.Connection, path: str, session_id: str) -> TranscriptSummary:
    """The summary saved with the file's cursor; a fresh one when there is none or it is unreadable."""
    row = conn.execute("SELECT summary FROM claude_transcript WHERE path = ?", (path,)).fetchone()
    if row is not None:
        try:
            return _summary_decoder.decode(row[0])
        except msgspec.DecodeError:
            pass
    return TranscriptSummary(session_id=session_id)


def save(conn: sqlite3.Connection, read: FileRead, now: float) -> None:
    """Store one read: its observations, its usage, then its cursor and summary (a restart forgets the old)."""
    if read.restarted:
        conn.execute("DELETE FROM claude_observation WHERE path = ?", (read.path,))
        ledger.forget(conn, read.path)
    save_usage(conn, read, now)
    if read.observations:
        conn.executemany(
            "INSERT OR REPLACE INTO claude_observation (path, place, seq, kind, data) VALUES (?, ?, ?, ?, ?)",
            [
                (read.path, o.place, o.seq, type(o).__struct_config__.tag, agents.observation_encoder.encode(o))
                for o in read.observations
            ],
        )
    conn.execute(
        "INSERT INTO claude_transcript (path, session_id, cursor, summary, updated) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT (path) DO UPDATE SET session_id = excluded.session_id, cursor = excluded.cursor, "
        "summary = excluded.summary, updated = excluded.updated",
        (
            read.path,
            read.session_id,
            _cursor_encoder.encode(read.cursor).decode(),
            msgspec.json.encode(read.summary).decode(),
            now,
        ),
    )


def forget(conn: sqlite3.Connection, path: str) -> None:
    """A transcript deleted (the client's retention sweep, a person): its rows go too."""
    conn.execute("DELETE FROM claude_transcript WHERE path = ?", (path,))
    conn.execute("DELETE FROM claude_observation WHERE path = ?", (path,))
    ledger.forget(conn, path)


def save_usage(conn: sqlite3.Connection, read: FileRead, now: float) -> None:
    """The tokens this read added, and the session's model and context fill as its transcript now says."""
    key = session_key(PROVIDER, read.session_id)
    if read.usage:
        ledger.record(conn, read.path, key, read.usage)
    summary = read.summary
    if summary.model is not None or read.usage:
        ledger.set_state(conn, read.path, key, summary.model, summary.context, None, summary.last_at or now)


def load_observations(conn: sqlite3.Connection, path: str) -> list[agents.Observation]:
    """Every background-work observation stored for one transcript."""
    found = []
    for (data,) in conn.execute("SELECT data FROM claude_observation WHERE path = ?", (path,)):
        try:
            found.append(agents.observation_decoder.decode(data))
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
    return found


def background_tasks(conn: sqlite3.Connection, session_id: str) -> list[agents.TranscriptTask]:
    """The session's agents and shells as its transcript says them: every running one, then up to 20 ended."""
    row = conn.execute(
        "SELECT path FROM claude_transcript WHERE session_id = ? ORDER BY updated DESC LIMIT 1", (session_id,)
    ).fetchone()
    return agents.finish(load_observations(conn, row[0])) if row is not None else []
