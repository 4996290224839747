"""The stored stream of state changes: appended where the row is committed, read by number or time.

A change is recorded in the transaction that stores the row: the collector's snapshot for this machine's
sessions, the sync intake (`sync.remote.apply`) for another host's, together with the bucket revision it
reached. So a change is recorded once (a restart resumes after that revision; a row whose state is the one last
recorded for it is no change), and another host's arrive in the order that host published them. Numbers come
from SQLite's AUTOINCREMENT: never reused, even once the oldest rows are pruned, so `--since N` resumes exactly.

The stream holds only what a row already shows to every front end (ids, host, client, states, the reason's
kind): never a prompt, a reply or a command. It is bounded: the newest `KEEP_COUNT` and at most `KEEP_S` old.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

from lunavect.core.model import Session
from lunavect.core.terminal_text import clean
from lunavect.core.times import epoch, iso

KEEP_COUNT = 10_000
KEEP_S = 7 * 24 * 3600.0
# The longest reason kept (a reason is a kind of error, what is waited for, or the evidence that decided).
REASON_CHARS = 200
# At most this many changes are read at once (a consumer asks again from the last number it got).
READ_AT_MOST = 1000


@dataclass(frozen=True)
class Change:
    """One recorded change, as `lunavect events --json` prints it (`as_dict`)."""

    seq: int
    id: str
    host: str
    client: str
    old: str | None
    new: str
    reason: str | None
    at: float

    def as_dict(self) -> dict[str, object]:
        return {
            "seq": self.seq,
            "id": self.id,
            "host": self.host,
            "client": self.client,
            "from": self.old,
            "to": self.new,
            "reason": self.reason,
            "time": iso(self.at),
        }


def reason_of(session: Session) -> str | None:
    """Why the session is in its state, as its row says it: the kind of error, what it waits for (a tool's
    name, `question`), else the evidence that decided (`basis`). Never text the agent or its person wrote."""
    if session.error:
        text = session.error
    elif session.waiting_for:
        text = session.waiting_for
    else:
        text = ",".join(session.basis)
    return clean(text, REASON_CHARS) or None


def record(conn: sqlite3.Connection, sessions: Iterable[Session], now: float) -> int:
    """Record the state of each session whose state differs from the one last recorded for it (call inside the
    transaction that stores the rows; a session's host is its row's, which for another host's row is its key's);
    returns how many were recorded."""
    added = 0
    for session in sessions:
        host = session.host
        row = conn.execute(
            "SELECT to_state FROM transition WHERE host = ? AND id = ? ORDER BY seq DESC LIMIT 1", (host, session.id)
        ).fetchone()
        old = row[0] if row else None
        new = str(session.state)
        if old == new:
            continue
        conn.execute(
            "INSERT INTO transition (host, id, client, from_state, to_state, reason, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (host, session.id, session.provider, old, new, reason_of(session), now),
        )
        added += 1
    if added:
        prune(conn, now)
    return added


def prune(conn: sqlite3.Connection, now: float) -> None:
    """Keep the newest `KEEP_COUNT`, none older than `KEEP_S` (both by index; inside the caller's transaction)."""
    conn.execute("DELETE FROM transition WHERE at < ?", (now - KEEP_S,))
    conn.execute(
        "DELETE FROM transition WHERE seq <= (SELECT MAX(seq) FROM transition) - ?",
        (KEEP_COUNT,),
    )


@dataclass(frozen=True)
class Since:
    """Where a reading starts: after a change's number, or at a time (epoch seconds); neither: the start."""

    seq: int | None = None
    at: float | None = None


def parse_since(text: str) -> Since:
    """`--since`: a change's number (the changes after it) or an ISO-8601 time (the changes from then; a time
    without a zone is UTC). Raises ValueError with the reason."""
    text = text.strip()
    if text.isdigit() and len(text) <= 18:
        return Since(seq=int(text))
    at = epoch(text)
    if at is None:
        raise ValueError(f"takes a change's number or an ISO-8601 time (not {clean(text, 40)!r})")
    return Since(at=at)


def read(
    conn: sqlite3.Connection, since: Since = Since(), host: str | None = None, limit: int = READ_AT_MOST
) -> list[Change]:
    """The changes after `since`, oldest first, of `host` only when given."""
    where: list[str] = ["1 = 1"]
    args: list[object] = []
    if since.seq is not None:
        where.append("seq > ?")
        args.append(since.seq)
    if since.at is not None:
        where.append("at >= ?")
        args.append(since.at)
    if host is not None:
        where.append("host = ?")
        args.append(host)
    rows = conn.execute(
        "SELECT seq, id, host, client, from_state, to_state, reason, at FROM transition "
        f"WHERE {' AND '.join(where)} ORDER BY seq LIMIT ?",
        (*args, limit),
    )
    return [Change(*row) for row in rows]


def latest(conn: sqlite3.Connection) -> int:
    """The newest change's number (0: none yet): `--follow` without `--since` starts after it."""
    row = conn.execute("SELECT MAX(seq) FROM transition").fetchone()
    return int(row[0] or 0)
