"""Where a client's face finds a session's conversation: the newest stored file still there, else its own layout."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from lunavect.conversation.source import found_file, stored_file


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


def test_a_stored_file_of_another_kind_or_none_falls_back_to_the_layout(tmp_path: Path) -> None:
    layout = tmp_path / "layout.jsonl"
    stored = {"a1": tmp_path / "a1.jsonl.zst", "b2": tmp_path / "b2.json"}
    assert found_file("a1", stored.get, lambda _: layout) == stored["a1"]
    assert found_file("b2", stored.get, lambda _: layout) == layout
    assert found_file("c3", stored.get, lambda _: layout) == layout
    assert found_file("c3", stored.get, lambda _: None) is None


def test_an_id_that_is_no_id_finds_nothing(tmp_path: Path) -> None:
    asked: list[str] = []
    assert found_file("../x", lambda found: asked.append(found), lambda found: tmp_path) is None
    assert asked == []
