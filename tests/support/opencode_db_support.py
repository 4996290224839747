"""A database as OpenCode 1.18.33 writes one (its tables and JSON, WAL), filled by a test: the reader's
tests and the poisoned-database tests build theirs with it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

T = 1_796_000_000_000  # ms

SCHEMA = """
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, parent_id TEXT, slug TEXT, directory TEXT, title TEXT,
  version TEXT, time_created INTEGER, time_updated INTEGER);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, time_created INTEGER, time_updated INTEGER,
  data TEXT);
"""


class OpenCodeDb:
    """A database as OpenCode 1.18.33 writes one (WAL), filled by a test."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.executescript(SCHEMA)
        self.n = 0

    def session(self, sid: str, at: int, title: str, parent: str | None = None) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO session VALUES (?, 'global', ?, 'calm', '/work/p', ?, '1.18.33', ?, ?)",
            (sid, parent, title, T, T + at),
        )

    def message(self, sid: str, at: int, **data) -> str:
        self.n += 1
        mid = f"msg_{self.n:026d}"
        data.setdefault("time", {"created": T + at})
        self.conn.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)", (mid, sid, T + at, T + at, json.dumps(data)))
        self.conn.execute("UPDATE session SET time_updated = ? WHERE id = ?", (T + at, sid))
        return mid

    def part(self, sid: str, mid: str, at: int, **data) -> None:
        self.n += 1
        pid = f"prt_{self.n:026d}"
        self.conn.execute(
            "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", (pid, mid, sid, T + at, T + at, json.dumps(data))
        )


def tokens(inp: int, out: int) -> dict:
    return {"input": inp, "output": out, "reasoning": 0, "cache": {"read": 10, "write": 0}}
