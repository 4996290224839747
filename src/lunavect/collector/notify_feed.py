"""Other hosts' state changes for this machine's notifier, when this machine is the one that notifies for
them (`hosts.notifies_for_other_hosts`): the same `Transition`s the collector hands it for its own rows.

Rows are compared with the state last seen for them, so what was already there when the collector started
notifies nothing, and a row whose host went silent keeps its last heard state: its host coming back with
the same state is no news, and `offline` for a silent host is never announced as a session's state.
"""

from __future__ import annotations

import sqlite3

from lunavect.core.model import State
from lunavect.listing import hosts
from lunavect.listing.sessions import read_rows
from lunavect.notify.decide import Transition
from lunavect.sync import remote


class RemoteTransitions:
    def __init__(self) -> None:
        self._states: dict[str, State] | None = None
        self._revision = -1

    def collect(self, conn: sqlite3.Connection, own_host: str, now: float | None = None) -> list[Transition]:
        """The other hosts' rows whose state changed since the last call (none on the first)."""
        revision = remote.revision(conn)
        if revision == self._revision:
            return []
        self._revision = revision
        first = self._states is None
        states = dict(self._states or {})
        moved: list[Transition] = []
        for row in read_rows(conn, now):
            session = row.session
            if session.host == own_host or hosts.silent_host_row(session):
                continue
            key = f"{session.host}/{session.id}"
            if not first and states.get(key) != session.state:
                moved.append(Transition(states.get(key), session, listed=True, hidden=session.hidden))
            states[key] = session.state
        self._states = states
        return moved
