"""Where a source keeps the cursor of each client file it reads incrementally, inside the collector's
transaction: one row per file (`file_cursor`), with the session it holds and a small summary of what was read.

A client whose reader needs nothing more than this (Gemini CLI's chat files) keeps no table of its own; the
cursor and the summary are its reader's own JSON, opaque here. Rows of a provider are read once, when its
source first polls, and kept up to date by each commit.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass


@dataclass(frozen=True)
class Row:
    session_id: str
    cursor: str
    summary: str


def load(conn: sqlite3.Connection, provider: str) -> dict[str, Row]:
    """Every stored cursor of `provider`'s files, by path."""
    rows = conn.execute("SELECT path, session_id, cursor, summary FROM file_cursor WHERE provider = ?", (provider,))
    return {path: Row(session_id, cursor, summary) for path, session_id, cursor, summary in rows}


def save(conn: sqlite3.Connection, provider: str, path: str, row: Row, now: float) -> None:
    conn.execute(
        "INSERT INTO file_cursor (path, provider, session_id, cursor, summary, updated) VALUES (?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (path) DO UPDATE SET provider = excluded.provider, session_id = excluded.session_id, "
        "cursor = excluded.cursor, summary = excluded.summary, updated = excluded.updated",
        (path, provider, row.session_id, row.cursor, row.summary, now),
    )


def forget(conn: sqlite3.Connection, path: str) -> None:
    """A file gone (its client's retention sweep, a person): its cursor goes too."""
    conn.execute("DELETE FROM file_cursor WHERE path = ?", (path,))


def paths_of(conn: sqlite3.Connection, provider: str, session_id: str) -> list[str]:
    """The files holding a session, newest read first (where its conversation is read from)."""
    rows = conn.execute(
        "SELECT path FROM file_cursor WHERE provider = ? AND session_id = ? ORDER BY updated DESC",
        (provider, session_id),
    )
    return [path for (path,) in rows]
