"""Where a source keeps the cursor of each client file it reads incrementally, inside the collector's
transaction: one row per file (`file_cursor`), with the session it holds and a small summary of what was read.

A client whose reader needs nothing more than this (Gemini CLI's chat files, GitHub Copilot CLI's events files)
keeps no table of its own; the cursor and the summary are its reader's own JSON, opaque to the table. A reader
of lines (`lunavect.files.tail.read_appended`) keeps its `Cursor` and a summary struct of its own, written and
read back here (`save_read`, `load_reads`). Rows of a provider are read once, when its source first polls, and
kept up to date by each commit.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import TypeVar

import msgspec

from lunavect.files.tail import Cursor

S = TypeVar("S", bound=msgspec.Struct)

_encoder = msgspec.json.Encoder()
_cursor = msgspec.json.Decoder(Cursor)


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


def save_read(
    conn: sqlite3.Connection,
    provider: str,
    path: str,
    session_id: str,
    cursor: Cursor,
    summary: msgspec.Struct,
    now: float,
) -> None:
    """A line reader's cursor and summary of one file, as JSON."""
    row = Row(session_id, _encoder.encode(cursor).decode(), _encoder.encode(summary).decode())
    save(conn, provider, path, row, now)


def load_reads(conn: sqlite3.Connection, provider: str, summary: type[S]) -> dict[str, tuple[Cursor, S]]:
    """Every stored cursor and summary of `provider`'s files, by path; a row of an older shape is left out, so its
    file is read again from its start."""
    decode = msgspec.json.Decoder(summary)
    found: dict[str, tuple[Cursor, S]] = {}
    for path, row in load(conn, provider).items():
        try:
            found[path] = (_cursor.decode(row.cursor), decode.decode(row.summary))
        except msgspec.DecodeError:
            continue
    return found
