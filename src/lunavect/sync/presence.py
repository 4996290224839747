"""Which machine notifies for the other hosts' sessions: the one where the person is.

The rule (README, "Many machines"): every front end that starts (`lunavect`, `list`, `watch`, the web
panel, ...) records the time in its store (`note_person`); each host's heartbeat carries it. Of the hosts
heard recently, the one whose front end was used last notifies for every other host's sessions; with no
front end used anywhere, the host with the smallest name does. Each host always notifies for its own
sessions itself. All hosts see the same beats, so they agree without talking to each other.
"""

from __future__ import annotations

import sqlite3
import time

from lunavect.core.model import Session
from lunavect.sync import config, remote

PERSON_SETTING = "sync.person_at"


def note_person(conn: sqlite3.Connection, now: float | None = None) -> None:
    """A person used a front end on this machine now."""
    now = time.time() if now is None else now
    conn.execute(
        "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (PERSON_SETTING, repr(now)),
    )


def person_at(conn: sqlite3.Connection) -> float | None:
    row = conn.execute("SELECT value FROM settings WHERE key = ?", (PERSON_SETTING,)).fetchone()
    try:
        return float(row[0]) if row is not None else None
    except ValueError:
        return None


def local_host(conn: sqlite3.Connection) -> str | None:
    """This machine's sync host name, or None when sync is off."""
    configured = config.load(conn)
    return configured.host if configured is not None else None


def is_other_host(conn: sqlite3.Connection, session: Session) -> bool:
    """True for a row of another machine (the notifier then asks `notifies_for_other_hosts`)."""
    return session.heard is not None or (local_host(conn) not in (None, session.host))


def notifying_host(conn: sqlite3.Connection, now: float | None = None) -> str | None:
    """The host that notifies for sessions of other hosts, or None when sync is off."""
    own = local_host(conn)
    if own is None:
        return None
    now = time.time() if now is None else now
    candidates: dict[str, float] = {own: person_at(conn) or 0.0}
    for name, host in remote.hosts(conn).items():
        if not host.silent(now):
            candidates[name] = host.person_at or 0.0
    # Latest person first; equal times (no front end anywhere) go to the smallest name.
    return min(candidates, key=lambda name: (-candidates[name], name))


def notifies_for_other_hosts(conn: sqlite3.Connection, now: float | None = None) -> bool:
    """True when this machine is the one that notifies for the other hosts' sessions."""
    own = local_host(conn)
    return own is not None and notifying_host(conn, now) == own
