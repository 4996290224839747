"""Reading the stored snapshot as front ends see it: arrangement applied, lifecycle-only launches left out.

Every front end (and `lunavect list --json`) goes through here, so they all agree on what is listed and in
which order.
"""

from __future__ import annotations

import sqlite3

import msgspec

from lunavect.core.model import AWAITING_STATES, WORKING_STATES, Session, State

_decoder = msgspec.json.Decoder(Session)


def read_sessions(conn: sqlite3.Connection, include_hidden: bool = False) -> list[Session]:
    """Listed sessions: pinned ones first in the person's order, then the most recently active first."""
    rows = conn.execute(
        "SELECT s.data, COALESCE(a.pinned, 0), COALESCE(a.hidden, 0), a.position "
        "FROM snapshot s LEFT JOIN arrangement a ON a.id = s.id WHERE s.listed = 1"
    ).fetchall()
    sessions: list[tuple[tuple, Session]] = []
    for data, pinned, hidden, position in rows:
        try:
            session = _decoder.decode(data)
        except msgspec.DecodeError:
            continue
        session.pinned, session.hidden = bool(pinned), bool(hidden)
        if session.hidden and not include_hidden:
            continue
        updated = session.updated or ""
        order = (0, position if position is not None else 0.0, "") if session.pinned else (1, 0.0, _desc(updated))
        sessions.append((order, session))
    sessions.sort(key=lambda item: (item[0], item[1].id))
    return [s for _, s in sessions]


def _desc(text: str) -> str:
    """A sort key that orders ISO timestamps newest first."""
    return "".join(chr(0x10FFFF - ord(c)) for c in text)


def counts(conn: sqlite3.Connection) -> dict[str, int]:
    """The header counters: working and awaiting input, hidden sessions included (hiding never cancels
    work)."""
    working = awaiting = 0
    for session in read_sessions(conn, include_hidden=True):
        state = State(session.state)
        if state in WORKING_STATES:
            working += 1
        elif state in AWAITING_STATES:
            awaiting += 1
    return {"working": working, "awaiting_input": awaiting}
