"""Reading the stored snapshot as front ends see it: arrangement applied, lifecycle-only launches left out.

Every front end (and `lunavect list --json`) goes through here, so they all agree on what is listed, what is
hidden and in which order. The hiding rules that depend on time (automatic hiding, the hidden list's 35 days)
are applied here with the reader's clock rather than by a background job, so two front ends reading at the
same instant can never disagree.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass

import msgspec

from lunavect.core import hiding, ordering
from lunavect.core.model import AWAITING_STATES, WORKING_STATES, Session
from lunavect.core.times import epoch
from lunavect.sync import remote
from lunavect.usage import ledger

# The settings key of automatic hiding: seconds of inactivity, absent when off (a new installation).
AUTO_HIDE_SETTING = "auto_hide_after"

_decoder = msgspec.json.Decoder(Session)


@dataclass
class Row:
    """One listed session with what its arrangement says about it."""

    session: Session
    pinned: bool
    position: float | None
    last_activity: float
    hidden_by_person: bool
    hidden_at: float | None
    shown_at: float | None
    listed_at: float | None
    hidden_automatically: bool = False
    # Left the hidden list (35 days unlisted by a complete catalog): shown nowhere.
    retired: bool = False

    @property
    def rank(self) -> float:
        return ordering.rank(self.pinned, self.position, self.last_activity)

    @property
    def sort_key(self) -> tuple[int, float, str]:
        return (0 if self.pinned else 1, self.rank, self.session.id)


def all_sessions(conn: sqlite3.Connection) -> list[Session]:
    """Every session of this machine's snapshot, listed or not: acting on a session (open, reply, answer)
    needs its neighbours too, since a terminal is told apart from theirs."""
    sessions: list[Session] = []
    for (data,) in conn.execute("SELECT data FROM snapshot"):
        try:
            sessions.append(_decoder.decode(data))
        except msgspec.DecodeError:
            continue
    return sessions


def auto_hide_after(conn: sqlite3.Connection) -> float | None:
    """The automatic hiding interval in seconds, or None when it is off."""
    row = conn.execute("SELECT value FROM settings WHERE key = ?", (AUTO_HIDE_SETTING,)).fetchone()
    if row is None:
        return None
    try:
        value = float(row[0])
    except (TypeError, ValueError):
        return None
    return value if value > 0 else None


def read_rows(conn: sqlite3.Connection, now: float | None = None) -> list[Row]:
    """Every listed session with its arrangement, in the list's order (hidden and retired ones included)."""
    now = time.time() if now is None else now
    after = auto_hide_after(conn)
    catalogs = dict(conn.execute("SELECT provider, at FROM catalog_listing").fetchall())
    # Other machines' sessions (sync) are listed beside this one's, as their hosts last said them.
    remote_hosts = remote.hosts(conn)
    rows: list[Row] = []
    usage = ledger.listed_sessions(conn)
    for data, remote_host, pinned, hidden, hidden_at, position, shown_at, listed_at in conn.execute(
        "SELECT s.data, s.host, COALESCE(a.pinned, 0), COALESCE(a.hidden, 0), a.hidden_at, a.position, "
        "a.shown_at, a.listed_at FROM (SELECT id, data, NULL AS host FROM snapshot WHERE listed = 1 "
        "UNION ALL SELECT id, data, host FROM remote_session) s LEFT JOIN arrangement a ON a.id = s.id"
    ):
        try:
            session = _decoder.decode(data)
        except msgspec.DecodeError:
            continue
        if remote_host is not None:
            session = remote.present(session, remote_hosts.get(remote_host), now)
        else:
            session.usage = usage.get(session.id)
        last_activity = epoch(session.updated) or 0.0
        row = Row(
            session=session,
            pinned=bool(pinned),
            position=position,
            last_activity=last_activity,
            hidden_by_person=bool(hidden),
            hidden_at=hidden_at,
            shown_at=shown_at,
            listed_at=listed_at,
        )
        if not row.hidden_by_person:
            row.hidden_automatically = hiding.hides_automatically(
                session.state, last_activity, now, after, shown_at=shown_at
            )
        if row.hidden_by_person or row.hidden_automatically:
            row.retired = hiding.leaves_hidden_list(
                catalog_complete_at=catalogs.get(session.provider),
                hidden_at=hidden_at,
                listed_at=listed_at,
                last_activity=last_activity,
            )
        session.pinned = row.pinned
        session.hidden = row.hidden_by_person or row.hidden_automatically
        rows.append(row)
    rows.sort(key=lambda r: r.sort_key)
    return rows


def read_sessions(
    conn: sqlite3.Connection, include_hidden: bool = False, now: float | None = None, host: str | None = None
) -> list[Session]:
    """Listed sessions: pinned ones first in the person's order, then the most recently active first; only
    those of `host` when it is given."""
    return [
        r.session
        for r in read_rows(conn, now)
        if not r.retired and (include_hidden or not r.session.hidden) and (host is None or r.session.host == host)
    ]


def read_hidden(conn: sqlite3.Connection, now: float | None = None) -> list[Session]:
    """The hidden list: sessions hidden by the person or automatically, until they leave it."""
    return [r.session for r in read_rows(conn, now) if r.session.hidden and not r.retired]


def count_sessions(sessions: list[Session]) -> dict[str, int]:
    """The header counters of a list that includes hidden sessions (hiding never cancels work)."""
    working = awaiting = 0
    for session in sessions:
        if remote.silent_host_row(session):
            continue
        if session.state in WORKING_STATES:
            working += 1
        elif session.state in AWAITING_STATES:
            awaiting += 1
    return {"working": working, "awaiting_input": awaiting}


def counts(conn: sqlite3.Connection, now: float | None = None) -> dict[str, int]:
    """The header counters: working and awaiting input, hidden sessions included (hiding never cancels
    work)."""
    return count_sessions(read_sessions(conn, include_hidden=True, now=now))
