"""The other hosts' sessions in this machine's store, and how every reader sees them.

The sync client (a thread of the collector) applies each watched bucket entry here, together with the
stream revision it has reached, in one transaction: a restart or a reconnect resumes right after that
revision, so an entry is never lost and never applied twice (each row also keeps its own revision, and an
older one never overwrites a newer). Whether a host is silent is decided by the reader's clock, like the
hiding rules: a row whose host has not beaten for `config.silent_after` seconds reads as `offline`, with
the time its host was last heard, whatever it said before.

Everything here comes from other machines, so it is checked where it enters: a key whose host name or
session id is not valid (`keys.parse`), a value no reader takes, a heartbeat with a time or period that is
no time, is dropped, counted and logged at a bounded rate, never a traceback; a row's identity (host,
provider, session id) is always its key's, never what its value claims.
"""

from __future__ import annotations

import logging
import math
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass

import msgspec

from lunavect import store
from lunavect.core.ids import is_session_id
from lunavect.core.terminal_text import clean
from lunavect.core.times import bounded
from lunavect.events import log as changes_log
from lunavect.host.name import machine_name
from lunavect.sync import arrange, keys, remote_row

# The collector table's keys for the sync client's own state live in sync/state_keys.py, which readers of the
# store import without this module's imports; the client and `sync status` reach them here too.
from lunavect.sync.state_keys import (
    CONNECTED_SINCE,
    CUT,
    DISCONNECTED_SINCE,
    ERROR,
    INTAKE,
    INTAKE_VERSION,
    OPEN_SERVER,
    REFUSED,
    REVISION,
    STARTED,
)

log = logging.getLogger("lunavect.sync")

_encoder = msgspec.json.Encoder()


class Beat(msgspec.Struct, frozen=True, omit_defaults=True):
    """A host's heartbeat: when it beat, how often it beats, which installation it is, and when a person
    last used one of its front ends (the notifying machine is chosen from this, see `notifier`)."""

    at: float
    every: float
    machine: str
    person_at: float | None = None


_beat_decoder = msgspec.json.Decoder(Beat)
# The longest heartbeat period a host may announce: a longer (or a negative, or a NaN) one would keep its
# sessions from ever reading as `offline`.
MAX_BEAT_S = 3600.0
# A refused entry is logged at most this often (with how many were refused since).
DROP_LOG_S = 600.0
# What of a refused key is logged: enough to find it in the bucket.
DROP_KEY_CHARS = 120


def decode_beat(data: bytes) -> Beat | None:
    """A heartbeat whose times are times and whose period is a period, or None."""
    try:
        beat = _beat_decoder.decode(data)
    except msgspec.DecodeError:
        return None
    if bounded(beat.at) is None or not (math.isfinite(beat.every) and 0 < beat.every <= MAX_BEAT_S):
        return None
    if not is_session_id(beat.machine) or (beat.person_at is not None and bounded(beat.person_at) is None):
        return None
    return beat


class Drops:
    """The entries of other machines refused where they entered (`count`), and the rows kept with fields cut to
    length (`cut`): counted, and logged at most once every `DROP_LOG_S` each (a host that keeps writing bad
    keys must not fill the collector's log)."""

    def __init__(self) -> None:
        self.count = 0
        self.cut = 0
        self._unlogged = {"refused": 0, "cut": 0}
        self._logged_at: dict[str, float] = {}

    def note(self, key: str, why: str, now: float | None = None) -> None:
        """An entry refused: nothing of it was stored."""
        self.count += 1
        self._log("refused", key, why, now)

    def note_cut(self, key: str, why: str, now: float | None = None) -> None:
        """A row kept, with what did not fit cut off."""
        self.cut += 1
        self._log("cut", key, why, now)

    def _log(self, kind: str, key: str, why: str, now: float | None) -> None:
        now = time.time() if now is None else now
        self._unlogged[kind] += 1
        logged_at = self._logged_at.get(kind)
        if logged_at is not None and now - logged_at < DROP_LOG_S:
            return
        n = self._unlogged[kind]
        if kind == "refused":
            text = f"ignored {n} entr{'y' if n == 1 else 'ies'} from other machines"
        else:
            text = f"cut {n} row{'' if n == 1 else 's'} from other machines to length"
        log.warning("sync: %s (the last: %s, key %s)", text, why, clean(key, DROP_KEY_CHARS))
        self._logged_at[kind], self._unlogged[kind] = now, 0


@dataclass(frozen=True)
class Entry:
    """One bucket entry as the watch delivered it: `value` None for a delete or purge."""

    key: str
    revision: int
    value: bytes | None
    created: float


def revision(conn: sqlite3.Connection) -> int:
    return int(store.collector_values(conn).get(REVISION) or 0)


# The ids of this machine's own sessions (`listing.sessions.own_ids`: the snapshot is the listing's to read).
OwnIds = Callable[[sqlite3.Connection], set[str]]


def apply(
    conn: sqlite3.Connection, own_host: str, entries: list[Entry], drops: Drops | None = None, *, own_ids: OwnIds
) -> int:
    """Apply watched entries (other hosts' only) and the revision reached; returns how many rows changed.
    Entries that are not valid are skipped and noted in `drops`, rows cut to fit are kept and noted too. No row
    may stand for one of this machine's own sessions (`own_ids`, read in the batch's transaction)."""
    if not entries:
        return 0
    drops = drops if drops is not None else Drops()
    before = (drops.count, drops.cut)
    changed = 0
    here = machine_name()  # this machine's name: no other may take it
    with store.transaction(conn):
        reached = start = revision(conn)
        held = _Held(conn, own_ids(conn))
        for entry in entries:
            if entry.revision <= start:
                continue  # delivered again (a watch restarted behind another): applied already
            reached = max(reached, entry.revision)
            parsed = keys.parse(entry.key)
            if parsed is None:
                drops.note(entry.key, "no valid host name or session id")
                continue
            if parsed.kind == keys.ARRANGEMENT and parsed.session is not None:
                # Every host's arrangement records, this one's included (a new store learns its own back).
                record = arrange.decode(entry.value) if entry.value is not None else None
                if entry.value is not None and record is None:
                    drops.note(entry.key, "an arrangement no reader takes")
                    continue
                refusal = held.arrangement_refusal(parsed.host, parsed.session) if parsed.host != own_host else None
                if record is not None and refusal is not None:
                    drops.note(entry.key, refusal)
                    continue
                arrange.store_record(conn, parsed.host, parsed.session, entry.revision, record)
                held.arranged(parsed.host, parsed.session, record is not None)
                changed += 1
            elif parsed.host == here:
                # Rows named as this machine are opened with this machine's pids, ttys and folders
                # (`navigation.remote_host.is_elsewhere`): another machine may not take that name.
                drops.note(entry.key, "another machine named as this one")
            elif parsed.host != own_host:
                applied = _apply_one(conn, parsed, entry, held)
                if isinstance(applied, str):
                    drops.note(entry.key, applied)
                    continue
                if applied.cut:
                    drops.note_cut(entry.key, "a row longer than a row may be")
                changed += applied.changed
        store.set_collector_value(conn, REVISION, str(reached))
        add_refused(conn, drops.count - before[0])
        _add_to(conn, CUT, drops.cut - before[1])
    return changed


def add_refused(conn: sqlite3.Connection, more: int) -> None:
    """Count `more` entries refused (in the caller's transaction)."""
    _add_to(conn, REFUSED, more)


def _add_to(conn: sqlite3.Connection, key: str, more: int) -> None:
    if more > 0:
        stored = store.collector_values(conn).get(key)
        total = (int(stored) if stored and stored.isdigit() else 0) + more
        store.set_collector_value(conn, key, str(total))


class _Held:
    """Which session ids are taken, read once per batch: this machine's own (a remote row may never stand for
    one of them: `lunavect resume ID` would run `ssh` to the host that claimed it), every other host's (the
    first host heard with an id keeps it), and how many rows and arrangement records each host has (at most
    `remote_row.MAX_ROWS_PER_HOST` of each: a host that pinned 20,000 ids that exist nowhere grew two local
    tables without bound)."""

    def __init__(self, conn: sqlite3.Connection, local: set[str]) -> None:
        self.local = local
        self.owner: dict[str, str] = {}
        self.keys: dict[str, set[str]] = {}
        self.arrangements: dict[str, set[str]] = {}
        self.first_heard: dict[tuple[str, str], float] = {}  # when this machine first heard each row
        for host, key, heard in conn.execute("SELECT host, id, first_heard FROM remote_session ORDER BY revision"):
            self.added(host, key)
            if heard is not None:
                self.first_heard[(host, key)] = heard
        for host, key in conn.execute("SELECT host, id FROM sync_arrangement"):
            self.arrangements.setdefault(host, set()).add(key)

    def arrangement_refusal(self, host: str, key: str) -> str | None:
        """Why `host` may not keep an arrangement record for `key` now, or None when it may."""
        held = self.arrangements.get(host, set())
        if key not in held and len(held) >= remote_row.MAX_ROWS_PER_HOST:
            return f"more than {remote_row.MAX_ROWS_PER_HOST} arrangements from one machine"
        return None

    def arranged(self, host: str, key: str, kept: bool) -> None:
        held = self.arrangements.setdefault(host, set())
        if kept:
            held.add(key)
        else:
            held.discard(key)

    def refusal(self, host: str, key: str) -> str | None:
        """Why `host` may not have a row for `key` now, or None when it may."""
        if key in self.local:
            return "a session id of this machine's own"
        owner = self.owner.get(key)
        if owner is not None and owner != host:
            return "a session id another machine holds"
        if owner is None and len(self.keys.get(host, ())) >= remote_row.MAX_ROWS_PER_HOST:
            return f"more than {remote_row.MAX_ROWS_PER_HOST} rows from one machine"
        return None

    def added(self, host: str, key: str) -> None:
        if self.owner.setdefault(key, host) == host:
            self.keys.setdefault(host, set()).add(key)

    def removed(self, host: str, key: str | None = None) -> None:
        """`key` of `host` left (every key of it when None)."""
        held = self.keys.get(host, set())
        for gone in list(held) if key is None else [key] if key in held else []:
            held.discard(gone)
            del self.owner[gone]
            self.first_heard.pop((host, gone), None)


@dataclass(frozen=True)
class _Applied:
    changed: int
    cut: bool = False


def _apply_one(conn: sqlite3.Connection, key: keys.Key, entry: Entry, held: _Held) -> _Applied | str:
    """What the entry changed, or why it was refused."""
    # Heard at the server's time of the put, never later than now: a beat caught up after an outage does not
    # make a host look alive that stopped long ago, and no row or beat claims a time after its own put.
    put_at = min(bounded(entry.created) or 0.0, time.time())
    if key.kind == keys.BEAT:
        if entry.value is None:  # the host turned sync off: its sessions leave with it
            conn.execute("DELETE FROM remote_session WHERE host = ?", (key.host,))
            held.removed(key.host)
            return _Applied(conn.execute("DELETE FROM remote_host WHERE host = ?", (key.host,)).rowcount)
        beat = decode_beat(entry.value)
        if beat is None:
            return "a heartbeat no reader takes"
        # A front end used "in the future" would make its host the notifying one for good.
        person_at = min(beat.person_at, put_at) if beat.person_at is not None else None
        conn.execute(
            "INSERT INTO remote_host (host, heard, beat_s, revision, machine, person_at) VALUES (?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (host) DO UPDATE SET heard = excluded.heard, beat_s = excluded.beat_s, "
            "revision = excluded.revision, machine = excluded.machine, person_at = excluded.person_at "
            "WHERE excluded.revision > remote_host.revision",
            (key.host, put_at, beat.every, entry.revision, beat.machine, person_at),
        )
        return _Applied(1)
    if key.kind == keys.SESSION and key.session is not None:
        if entry.value is None:
            gone = conn.execute(
                "DELETE FROM remote_session WHERE host = ? AND id = ? AND revision < ?",
                (key.host, key.session, entry.revision),
            ).rowcount
            if gone:
                held.removed(key.host, key.session)
            return _Applied(gone)
        session = remote_row.decode(entry.value)
        if session is None:
            return "a row no reader takes"
        refusal = held.refusal(key.host, key.session)
        if refusal is not None:
            return refusal
        heard = held.first_heard.setdefault((key.host, key.session), put_at)
        cut = remote_row.admit(session, key.host, key.session, put_at, heard)
        written = conn.execute(
            "INSERT INTO remote_session (host, id, data, revision, first_heard) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (host, id) DO UPDATE SET data = excluded.data, revision = excluded.revision "
            "WHERE excluded.revision > remote_session.revision",
            (key.host, key.session, _encoder.encode(session).decode(), entry.revision, heard),
        ).rowcount
        if written:  # its state change, if any, joins the stream in the order its host published it
            changes_log.record(conn, [session], put_at)
        held.added(key.host, key.session)
        return _Applied(1, cut)
    return _Applied(0)


def readmit_if_older(conn: sqlite3.Connection) -> None:
    """Rows stored by an older intake than this one (before a row's resume was rebuilt, its terminal dropped,
    its length bounded, its id checked against this machine's) are taken in again: the other hosts' rows and
    beats are forgotten and the watch starts again from the newest value of every key."""
    if store.collector_values(conn).get(INTAKE) == INTAKE_VERSION:
        return
    with store.transaction(conn):
        conn.execute("DELETE FROM remote_session")
        conn.execute("DELETE FROM remote_host")
        conn.execute("DELETE FROM collector WHERE key = ?", (REVISION,))
        store.set_collector_value(conn, INTAKE, INTAKE_VERSION)


def forget_all(conn: sqlite3.Connection) -> None:
    """Drop every other host's rows and the revision reached (sync turned off, or the bucket was recreated)."""
    with store.transaction(conn):
        conn.execute("DELETE FROM remote_session")
        conn.execute("DELETE FROM remote_host")
        conn.execute("DELETE FROM sync_arrangement")
        conn.execute("DELETE FROM sync_agreed")
        conn.execute(
            "DELETE FROM collector WHERE key IN (?, ?, ?, ?, ?, ?, ?, ?)",
            (REVISION, CONNECTED_SINCE, DISCONNECTED_SINCE, ERROR, STARTED, REFUSED, CUT, OPEN_SERVER),
        )
