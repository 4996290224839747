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

from lunavect import store
from lunavect.core import clients, dismissal, hiding, ordering, telling
from lunavect.core.clients import Client
from lunavect.core.model import AWAITING_STATES, WORKING_STATES, Session, State
from lunavect.core.times import epoch
from lunavect.core.tokens import SessionUsage
from lunavect.listing import hosts
from lunavect.usage import ledger

# The settings key of automatic hiding: seconds of inactivity, absent when off (a new installation).
AUTO_HIDE_SETTING = "auto_hide_after"

_decoder = msgspec.json.Decoder(Session)

# The states the counters and "needs you" (`listing.attention`) count: working, awaiting its person, a failed
# turn. A bar or a tmux key runs `counts`, `status` or `next --print` every second; reading only these rows
# (the snapshot's indexed `state`; another host's row by its stored state, which reading only ever turns into
# `offline`, never into one of these) keeps them as fast at 50,000 sessions as at 100.
COUNTED_STATES: frozenset[str] = frozenset(WORKING_STATES | AWAITING_STATES | {State.ERROR})


@dataclass
class Row:
    """One listed session with what its arrangement says about it."""

    session: Session
    pinned: bool
    position: float | None
    # The newest evidence of the session (any source still reporting it): what the hiding rules count from.
    last_activity: float
    hidden_by_person: bool
    hidden_at: float | None
    shown_at: float | None
    listed_at: float | None
    hidden_automatically: bool = False
    # Left the hidden list (35 days unlisted by a complete catalog): shown nowhere.
    retired: bool = False
    # When the session last did anything, as its row shows it (LAST): what the unpinned order follows, so a row
    # moves only on what the person can see, never on an event of no activity (Claude Code's idle notice a
    # minute after a reply, a re-read). Rows written before `last_active` was follow their newest evidence.
    last_active: float = 0.0

    @property
    def rank(self) -> float:
        return ordering.rank(self.pinned, self.position, self.last_active)

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


def _own_session(conn: sqlite3.Connection, key: str) -> Session | None:
    """One session of this machine's snapshot, listed or not, read by its key alone (None when absent or
    unreadable)."""
    row = conn.execute("SELECT data FROM snapshot WHERE id = ?", (key,)).fetchone()
    if row is None:
        return None
    try:
        return _decoder.decode(row[0])
    except msgspec.DecodeError:
        return None


def find_session(conn: sqlite3.Connection, key: str) -> Session | None:
    """The session `key` names: this machine's (listed or not), else another machine's listed row (sync), hidden
    ones too: what `lunavect open` and a notification's click open."""
    found = _own_session(conn, key)
    if found is None:
        found = next((s for s in read_sessions(conn, include_hidden=True) if s.id == key), None)
    return found


def title_of(conn: sqlite3.Connection, key: str) -> str | None:
    """One session's title in this machine's snapshot (what a notification names it by), listed or not."""
    found = _own_session(conn, key)
    return found.title if found is not None else None


def own_ids(conn: sqlite3.Connection) -> set[str]:
    """The ids of every session of this machine's snapshot, listed or not: no other machine's row may stand
    for one of them (sync's intake refuses it)."""
    return {key for (key,) in conn.execute("SELECT id FROM snapshot")}


def auto_hide_after(conn: sqlite3.Connection) -> float | None:
    """The automatic hiding interval in seconds, or None when it is off."""
    text = store.get_setting(conn, AUTO_HIDE_SETTING)
    if text is None:
        return None
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if value > 0 else None


@dataclass
class _Kept:
    inputs: tuple[object, ...]
    row: Row
    sort_key: tuple[int, float, str]
    # What the session was last handed out with (None: not yet handed out).
    handed: tuple[SessionUsage | None, bool, str | None] | None = None


class RowMemo:
    """What one long-lived reader (the panel) keeps between two reads, so that a change costs what changed.

    The panel reads the list again at every change the collector announces; with a thousand rows, decoding each
    row's JSON and parsing its times again was most of the time from a commit to the redrawn row. The memo keeps
    each row with what it was made from (its stored text and its arrangement): a row whose inputs did not move
    is neither decoded nor built again, and its session is the very same object as in the previous read unless
    its usage or its hiding moved, so the reader can redraw only the lines whose session is a new object. Every
    row is still read in the one query and compared, so nothing that changed is missed (no version number that
    every writer would have to keep), and the time-dependent rules (automatic hiding, retirement) and the order
    are applied at every read, exactly as without a memo. A memo belongs to one reader: the rows and sessions it
    returns are its own, not to be changed.
    """

    def __init__(self) -> None:
        self._kept: dict[str, _Kept] = {}
        # How many rows the last read had to decode: what the tests check.
        self.decoded = 0


def _decode(data: str) -> Session | None:
    try:
        session = _decoder.decode(data)
    except msgspec.DecodeError:
        return None
    session.tells = _tells(session.provider)
    return session


def _tells(provider: str) -> dict[str, list[str]] | None:
    """What the row's client can tell (`core.telling`): the same object for every row of a client."""
    client = clients.by_id(provider)
    if client is None:
        return None
    told = _told.get(client)
    if told is None:
        told = _told[client] = telling.as_json(client)
    return told


_told: dict[Client, dict[str, list[str]]] = {}


def read_rows(
    conn: sqlite3.Connection,
    now: float | None = None,
    memo: RowMemo | None = None,
    states: frozenset[str] | None = None,
) -> list[Row]:
    """Every listed session with its arrangement, in the list's order (hidden and retired ones included).
    A long-lived reader passes its `memo` (see `RowMemo`). With `states`, only the sessions stored in one of
    them, and without their usage (what the counters read: `COUNTED_STATES`)."""
    now = time.time() if now is None else now
    own_where = remote_where = ""
    chosen: tuple[str, ...] = ()
    if states is not None:
        chosen = tuple(sorted(states))
        marks = ", ".join("?" * len(chosen))
        own_where = f" AND state IN ({marks})"
        # A damaged row is left out, as its decoding would leave it out of the whole list (json_extract raises
        # on text that is not JSON, and one row must never stop the counters).
        remote_where = f" AND CASE WHEN json_valid(data) THEN json_extract(data, '$.state') END IN ({marks})"
    after = auto_hide_after(conn)
    catalogs = dict(conn.execute("SELECT provider, at FROM catalog_listing").fetchall())
    # Other machines' sessions (sync) are listed beside this one's, as their hosts last said them; a session of
    # this machine always wins over another machine's row with its id (`lunavect resume ID` must never ssh to a
    # machine that claims one of this machine's sessions).
    remote_hosts = hosts.hosts(conn)
    keyed: list[tuple[tuple[int, float, str], Row]] = []
    usage = ledger.sessions(conn, listed=True) if states is None else {}
    kept_before = memo._kept if memo is not None else {}
    kept_now: dict[str, _Kept] = {}
    if memo is not None:
        memo.decoded = 0
    for key, data, remote_host, pinned, hidden, hidden_at, position, shown_at, listed_at, dismissed in conn.execute(
        "SELECT s.id, s.data, s.host, COALESCE(a.pinned, 0), COALESCE(a.hidden, 0), a.hidden_at, a.position, "
        f"a.shown_at, a.listed_at, a.dismissed FROM (SELECT id, data, NULL AS host FROM snapshot WHERE listed = 1{own_where} "
        "UNION ALL SELECT id, data, host FROM remote_session r "
        "WHERE NOT EXISTS (SELECT 1 FROM snapshot o WHERE o.id = r.id)"
        f"{remote_where}) s LEFT JOIN arrangement a ON a.id = s.id",  # noqa: S608 - placeholders only
        chosen * 2,
    ):
        inputs = (data, pinned, hidden, hidden_at, position, shown_at, listed_at, dismissed)
        kept = kept_before.get(key) if remote_host is None else None
        if kept is None or kept.inputs != inputs:
            session = _decode(data)
            if session is None:
                continue
            if memo is not None:
                memo.decoded += 1
            if remote_host is not None:
                session = hosts.present(session, remote_hosts.get(remote_host), now)
            row = Row(
                session=session,
                pinned=bool(pinned),
                position=position,
                last_activity=epoch(session.updated) or 0.0,
                last_active=epoch(session.last_active) or epoch(session.updated) or 0.0,
                hidden_by_person=bool(hidden),
                hidden_at=hidden_at,
                shown_at=shown_at,
                listed_at=listed_at,
            )
            kept = _Kept(inputs, row, row.sort_key)
        row = kept.row
        session = row.session
        row.hidden_automatically = not row.hidden_by_person and hiding.hides_automatically(
            session.state, row.last_activity, now, after, shown_at=shown_at
        )
        is_hidden = row.hidden_by_person or row.hidden_automatically
        row.retired = is_hidden and hiding.leaves_hidden_list(
            catalog_complete_at=catalogs.get(session.provider),
            hidden_at=hidden_at,
            listed_at=listed_at,
            last_activity=row.last_activity,
        )
        handed = (None if remote_host is not None else usage.get(session.id), is_hidden, dismissed)
        if kept.handed != handed:
            if kept.handed is not None:
                # Handed out before with other figures: replaced, never changed, so the reader's previous list
                # keeps what it showed (and a redraw can tell the changed rows by their identity).
                session = row.session = msgspec.structs.replace(session)
            if remote_host is None:
                session.usage = handed[0]
            session.pinned = row.pinned
            session.hidden = is_hidden
            session.dismissed = dismissal.holds(dismissed, session)
            kept.handed = handed
        if memo is not None and remote_host is None:
            kept_now[key] = kept
        keyed.append((kept.sort_key, row))
    if memo is not None:
        memo._kept = kept_now
    keyed.sort(key=lambda pair: pair[0])
    return [row for _key, row in keyed]


def read_sessions(
    conn: sqlite3.Connection,
    include_hidden: bool = False,
    now: float | None = None,
    host: str | None = None,
    memo: RowMemo | None = None,
    states: frozenset[str] | None = None,
) -> list[Session]:
    """Listed sessions: pinned ones first in the person's order, then the most recently active first (as their
    LAST column shows it); only those of `host` when it is given. `memo` and `states`: see `read_rows`."""
    return [
        r.session
        for r in read_rows(conn, now, memo, states)
        if not r.retired and (include_hidden or not r.session.hidden) and (host is None or r.session.host == host)
    ]


def read_hidden(conn: sqlite3.Connection, now: float | None = None) -> list[Session]:
    """The hidden list: sessions hidden by the person or automatically, until they leave it."""
    return [r.session for r in read_rows(conn, now) if r.session.hidden and not r.retired]


def count_sessions(sessions: list[Session]) -> dict[str, int]:
    """The header counters of a list that includes hidden sessions (hiding never cancels work)."""
    working = awaiting = 0
    for session in sessions:
        if hosts.silent_host_row(session):
            continue
        if session.state in WORKING_STATES:
            working += 1
        elif session.state in AWAITING_STATES:
            awaiting += 1
    return {"working": working, "awaiting_input": awaiting}


def read_counted(conn: sqlite3.Connection, now: float | None = None) -> list[Session]:
    """The listed sessions the counters and "needs you" can count (`COUNTED_STATES`), hidden ones included
    (hiding never cancels work), without their usage."""
    return read_sessions(conn, include_hidden=True, now=now, states=COUNTED_STATES)


def counts(conn: sqlite3.Connection, now: float | None = None) -> dict[str, int]:
    """The header counters: working and awaiting input, hidden sessions included (hiding never cancels
    work)."""
    return count_sessions(read_counted(conn, now))
