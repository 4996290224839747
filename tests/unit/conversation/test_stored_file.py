"""The newest stored file of a session that is still there: the one lookup every client's face makes first."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from lunavect.conversation.source import stored_file


def _paths(conn: sqlite3.Connection) -> list[str]:
    return [path for (path,) in conn.execute("SELECT path FROM stored ORDER BY updated DESC")]


def test_the_newest_stored_file_still_there_is_taken(tmp_path: Path) -> None:
    older, newest = tmp_path / "older.jsonl", tmp_path / "gone.jsonl"
    older.write_text("{}\n")
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE stored (path TEXT, updated REAL)")
    conn.executemany("INSERT INTO stored VALUES (?, ?)", [(str(older), 1.0), (str(newest), 2.0)])
    assert stored_file(conn, _paths) == older
    older.unlink()
    assert stored_file(conn, _paths) is None


def test_no_store_or_an_unreadable_one_finds_nothing() -> None:
    assert stored_file(None, _paths) is None
    conn = sqlite3.connect(":memory:")  # no such table: the store cannot answer
    assert stored_file(conn, _paths) is None
