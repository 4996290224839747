"""What was sent, kept in the store so that a collector restart, a re-read transcript or a replayed spool never
sends an old notification again: one row per (session, mark), the mark naming the kind and the evidence time.

Rows older than `KEEP_S` are dropped: a state change that old is past every freshness window anyway.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

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


# How a notification's delivery went (`notified.outcome`).
SENT, FAILED, NOT_SHOWN = "sent", "failed", "not shown"


@dataclass(frozen=True)
class Delivery:
    """One session's notification as the store keeps it: what, when, and how its delivery went (`outcome`
    None while it was being delivered, or when a store from before outcomes recorded it)."""

    key: str
    kind: str
    at: float
    outcome: str | None
    reason: str | None


def delivered(conn: sqlite3.Connection, items: Iterable[Item], outcome: str, reason: str | None = None) -> None:
    """How the delivery of a notification (of these items) went: sent, failed with its reason, not shown."""
    with store.transaction(conn):
        conn.executemany(
            "UPDATE notified SET outcome = ?, reason = ? WHERE id = ? AND mark = ?",
            [(outcome, reason, i.key, i.mark) for i in items],
        )


def recent(conn: sqlite3.Connection, limit: int = 20) -> list[Delivery]:
    """The latest notifications, newest first (for `notifications status` and `doctor`)."""
    rows = conn.execute("SELECT id, kind, at, outcome, reason FROM notified ORDER BY at DESC LIMIT ?", (limit,))
    return [Delivery(*row) for row in rows]


def failing(conn: sqlite3.Connection, limit: int = 100) -> list[Delivery]:
    """The notifications that failed since the last one that was shown (newest first): none when the latest
    delivery went through. `doctor` names them: a person learns that nothing reached them, and why."""
    failed = []
    for delivery in recent(conn, limit):
        if delivery.outcome != FAILED:
            break
        failed.append(delivery)
    return failed
