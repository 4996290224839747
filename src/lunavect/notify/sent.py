"""What was sent, kept in the store so that a collector restart, a re-read transcript or a replayed spool never
sends an old notification again: one row per (session, mark), the mark naming the kind and the evidence time.

Rows older than `KEEP_S` are dropped: a state change that old is past every freshness window anyway.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from lunavect import store
from lunavect.notify.decide import FRESH_S, Item

KEEP_S = 24 * 3600.0
assert KEEP_S > FRESH_S


def was_sent(conn: sqlite3.Connection, key: str, mark: str) -> bool:
    row = conn.execute("SELECT 1 FROM notified WHERE id = ? AND mark = ?", (key, mark)).fetchone()
    return row is not None


def record(conn: sqlite3.Connection, items: Iterable[Item], now: float) -> None:
    with store.transaction(conn):
        conn.executemany(
            "INSERT OR IGNORE INTO notified (id, mark, kind, at) VALUES (?, ?, ?, ?)",
            [(i.key, i.mark, i.kind, now) for i in items],
        )
        conn.execute("DELETE FROM notified WHERE at < ?", (now - KEEP_S,))


def recent(conn: sqlite3.Connection, limit: int = 20) -> list[tuple[str, str, float]]:
    """The latest notifications sent: (session, kind, when), newest first (for `notifications status`)."""
    return [
        (key, kind, at)
        for key, kind, at in conn.execute("SELECT id, kind, at FROM notified ORDER BY at DESC LIMIT ?", (limit,))
    ]
