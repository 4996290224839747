"""The other machines as every reader sees them: which hosts were heard and when, their rows shown `offline`
once their host is silent, whether their rows are current here, and which machine notifies for them.

Sync (`lunavect.sync`) writes what other machines sent, checked where it entered (`sync.remote`); this is the
reading half, kept beside the other readers of the store so that front ends never import sync's transport.

Which machine notifies for the other hosts' sessions is the one where the person is (docs, "Many
machines"): each host's heartbeat carries when a front end was last used there (`sync.presence`). Of the hosts
heard recently, the one whose front end was used last notifies for every other host's sessions; with no front
end used anywhere, the host with the smallest name does. Each host always notifies for its own sessions
itself. All hosts see the same beats, so they agree without talking to each other.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass

from lunavect import store
from lunavect.core.model import Session, State
from lunavect.sync import config
from lunavect.sync.presence import local_host, person_at
from lunavect.sync.state_keys import CONNECTED_SINCE, DISCONNECTED_SINCE, HEARTBEAT_BASIS, STARTED


@dataclass(frozen=True)
class Host:
    heard: float
    beat_s: float
    machine: str | None
    person_at: float | None

    def silent(self, now: float) -> bool:
        return now - self.heard > config.silent_after(self.beat_s)


def hosts(conn: sqlite3.Connection) -> dict[str, Host]:
    return {
        name: Host(heard, beat_s, machine, person_at)
        for name, heard, beat_s, machine, person_at in conn.execute(
            "SELECT host, heard, beat_s, machine, person_at FROM remote_host"
        )
    }


def present(session: Session, host: Host | None, now: float) -> Session:
    """An other host's row as readers see it at `now`: as its host said, or `offline` once it is silent."""
    from lunavect.core.times import iso

    if host is not None:
        session.heard = iso(host.heard)
    if host is None or host.silent(now):
        session.state = State.OFFLINE
        session.open = False  # nobody can tell whether its client still runs there
        session.activity = None
        session.waiting_for = None
        session.basis = [HEARTBEAT_BASIS]
    return session


def elsewhere(session: Session) -> bool:
    """True for another machine's row: only those carry when their host was last heard (`present`), and a row
    whose host was never heard is a silent one (`silent_host_row`)."""
    return session.heard is not None or silent_host_row(session)


def silent_host_row(session: Session) -> bool:
    """True for a row shown `offline` only because its host stopped beating (counted neither working nor
    awaiting: nobody knows what it does)."""
    return session.state == State.OFFLINE and session.basis == [HEARTBEAT_BASIS]


def not_current_since(conn: sqlite3.Connection) -> float | None:
    """Since when the other hosts' rows are not current here (the sync server unreachable, or never reached
    since the client started), or None while connected or with sync off."""
    values = store.collector_values(conn)
    for key in (DISCONNECTED_SINCE, None if values.get(CONNECTED_SINCE) else STARTED):
        if key is not None and values.get(key) is not None:
            try:
                return float(values[key])
            except ValueError:
                return None
    return None


def not_current_note(conn: sqlite3.Connection) -> str | None:
    """The line front ends show while other hosts' rows are not current, or None."""
    since = not_current_since(conn)
    if since is None:
        return None
    return f"other hosts not current since {time.strftime('%H:%M:%S', time.localtime(since))} (sync server unreachable)"


def notifying_host(conn: sqlite3.Connection, now: float | None = None) -> str | None:
    """The host that notifies for sessions of other hosts, or None when sync is off."""
    own = local_host(conn)
    if own is None:
        return None
    now = time.time() if now is None else now
    candidates: dict[str, float] = {own: person_at(conn) or 0.0}
    for name, host in hosts(conn).items():
        if not host.silent(now):
            candidates[name] = host.person_at or 0.0
    # Latest person first; equal times (no front end anywhere) go to the smallest name.
    return min(candidates, key=lambda name: (-candidates[name], name))


def notifies_for_other_hosts(conn: sqlite3.Connection, now: float | None = None) -> bool:
    """True when this machine is the one that notifies for the other hosts' sessions."""
    own = local_host(conn)
    return own is not None and notifying_host(conn, now) == own
