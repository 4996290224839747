"""The person's arrangement (pinned, hidden, order, restored) across machines, resolved by KV revisions.

Each host writes, per session, one record under its own key (`<host>.arr.<provider>.<id>`): for every field
it ever changed, the value and the bucket revision of the put that changed it (0 in the record that does:
that record's own revision), plus, for a hide or an unhide, the highest arrangement revision the host had
seen. Every host merges the same records the same way, so all agree without talking:

- pinned, position and shown_at: the value of the newest change (highest revision);
- hidden: a hide stands unless an unhide came after it *and had seen it*; so two machines acting at once
  never lose a hide (an unhide only undoes the hides it knew of).

A revision a record names is another machine's word: it is clamped to the revision of the put that carries it
(the server's, which no host chooses), so no record can claim the future.

The sync thread runs `step` on each wake: first it finds what the person changed here (the local table
differs from the merge of the records it last agreed with) and puts it, then it stores the records that
arrived and writes the new merge into the local table (a compare-and-set, so a change made meanwhile is
found on the next step rather than overwritten).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import msgspec

from lunavect import store
from lunavect.core.times import bounded

FIELDS = ("pinned", "hidden", "position", "shown_at")
# What a session without any record has.
DEFAULTS: dict[str, object] = {"pinned": False, "hidden": False, "position": None, "shown_at": None}


class Change(msgspec.Struct, array_like=True, frozen=True):
    value: bool | float | None
    rev: int = 0  # 0: the revision of the record that carries it
    seen: int = 0  # hidden only: the highest arrangement revision its host had seen
    at: float | None = None  # hidden only: when it was hidden


class Record(msgspec.Struct, frozen=True, omit_defaults=True):
    pinned: Change | None = None
    hidden: Change | None = None
    position: Change | None = None
    shown_at: Change | None = None


_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(Record)


def decode(data: bytes | str) -> Record | None:
    """A record as another machine wrote it, or None when it holds no valid one: a time out of range (a hide
    at 1e300 would never expire, a shown time at 1e300 would keep its session from ever hiding) is refused."""
    try:
        record = _decoder.decode(data)
    except msgspec.DecodeError:
        return None
    times = [record.hidden.at if record.hidden is not None else None]
    times.append(record.shown_at.value if record.shown_at is not None else None)
    if any(t is not None and (isinstance(t, bool) or bounded(t) is None) for t in times):
        return None
    return record


def encode(record: Record) -> bytes:
    return _encoder.encode(record)


@dataclass(frozen=True)
class Merged:
    pinned: bool
    hidden: bool
    hidden_at: float | None
    position: float | None
    shown_at: float | None

    def field(self, name: str) -> object:
        return getattr(self, name)


def merge(records: list[tuple[int, Record]]) -> Merged:
    """One session's arrangement from every host's record (revision of the put, record)."""
    newest: dict[str, tuple[int, object]] = {}
    hides: list[tuple[int, float | None]] = []
    unhides: list[tuple[int, int]] = []
    for revision, record in records:
        for name in FIELDS:
            change: Change | None = getattr(record, name)
            if change is None:
                continue
            # A change is never newer than the put that carries it: a record that claims `rev=10**15` would
            # otherwise outrank every later change on every machine (a hide no unhide could undo).
            rev = min(change.rev, revision) if change.rev > 0 else revision
            if name == "hidden":
                if change.value:
                    hides.append((rev, change.at))
                else:
                    unhides.append((rev, min(change.seen, rev)))
            elif rev > newest.get(name, (-1, None))[0]:
                newest[name] = (rev, change.value)
    standing = [(rev, at) for rev, at in hides if not any(u_rev > rev and seen >= rev for u_rev, seen in unhides)]
    hidden_at = max(standing)[1] if standing else None
    return Merged(
        pinned=bool(newest.get("pinned", (0, False))[1]),
        hidden=bool(standing),
        hidden_at=hidden_at,
        position=_number(newest.get("position", (0, None))[1]),
        shown_at=_number(newest.get("shown_at", (0, None))[1]),
    )


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


# -- the store side -------------------------------------------------------------------------------------------


def records(conn: sqlite3.Connection) -> dict[str, list[tuple[int, Record]]]:
    found: dict[str, list[tuple[int, Record]]] = {}
    for key, revision, data in conn.execute("SELECT id, revision, data FROM sync_arrangement"):
        record = decode(data)
        if record is not None:
            found.setdefault(key, []).append((revision, record))
    return found


def remote_ids(conn: sqlite3.Connection) -> set[str]:
    """The ids of the sessions other machines list here."""
    return {key for (key,) in conn.execute("SELECT id FROM remote_session")}


def store_record(conn: sqlite3.Connection, host: str, key: str, revision: int, record: Record | None) -> None:
    if record is None:
        conn.execute("DELETE FROM sync_arrangement WHERE host = ? AND id = ? AND revision < ?", (host, key, revision))
        return
    conn.execute(
        "INSERT INTO sync_arrangement (host, id, revision, data) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (host, id) DO UPDATE SET revision = excluded.revision, data = excluded.data "
        "WHERE excluded.revision > sync_arrangement.revision",
        (host, key, revision, encode(record).decode()),
    )


def own_record(conn: sqlite3.Connection, host: str, key: str) -> Record:
    row = conn.execute("SELECT revision, data FROM sync_arrangement WHERE host = ? AND id = ?", (host, key)).fetchone()
    if row is None:
        return Record()
    record = decode(row[1]) or Record()
    # Fields of the stored record that carried rev 0 were changed by that very put: pin their revision.
    return Record(**{name: _pinned_rev(getattr(record, name), row[0]) for name in FIELDS})


def _pinned_rev(change: Change | None, revision: int) -> Change | None:
    if change is None or change.rev:
        return change
    return Change(change.value, revision, change.seen, change.at)


def local_rows(conn: sqlite3.Connection) -> dict[str, tuple[bool, bool, float | None, float | None, float | None]]:
    return {
        key: (bool(pinned), bool(hidden), hidden_at, position, shown_at)
        for key, pinned, hidden, hidden_at, position, shown_at in conn.execute(
            "SELECT id, pinned, hidden, hidden_at, position, shown_at FROM arrangement"
        )
    }


def local_changes(
    local: tuple[bool, bool, float | None, float | None, float | None], merged: Merged | None
) -> dict[str, bool | float | None]:
    """The fields the person changed here: where the local row differs from the agreed merge."""
    pinned, hidden, _hidden_at, position, shown_at = local
    values: dict[str, bool | float | None] = {
        "pinned": pinned,
        "hidden": hidden,
        "position": position,
        "shown_at": shown_at,
    }
    return {
        name: value
        for name, value in values.items()
        if value != (merged.field(name) if merged is not None else DEFAULTS[name])
    }


def seen_revision(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT MAX(revision) FROM sync_arrangement").fetchone()
    return int(row[0] or 0)


_merged_encoder = msgspec.json.Encoder()


def agreed(conn: sqlite3.Connection) -> dict[str, Merged]:
    """Per session, the merge last written into the local table: what "the person changed it here" is
    measured against."""
    found: dict[str, Merged] = {}
    for key, data in conn.execute("SELECT id, data FROM sync_agreed"):
        try:
            found[key] = Merged(**msgspec.json.decode(data))
        except (msgspec.DecodeError, TypeError):
            continue
    return found


def write_merged(
    conn: sqlite3.Connection,
    key: str,
    merged: Merged,
    expected: tuple[bool, bool, float | None, float | None, float | None] | None,
) -> bool:
    """Put the merge into the local table unless the person changed the row since it was read; True when
    written (then it is also the agreed merge)."""
    with store.transaction(conn):
        if expected is None:
            conn.execute("INSERT OR IGNORE INTO arrangement (id) VALUES (?)", (key,))
            expected = (False, False, None, None, None)
        conn.execute(
            "UPDATE arrangement SET pinned = ?, hidden = ?, hidden_at = ?, position = ?, shown_at = ? "
            "WHERE id = ? AND pinned = ? AND hidden = ? AND hidden_at IS ? AND position IS ? AND shown_at IS ?",
            (
                int(merged.pinned),
                int(merged.hidden),
                merged.hidden_at if merged.hidden else None,
                merged.position,
                merged.shown_at,
                key,
                int(expected[0]),
                int(expected[1]),
                expected[2],
                expected[3],
                expected[4],
            ),
        )
        if conn.execute("SELECT changes()").fetchone()[0] == 0:
            return False
        conn.execute(
            "INSERT INTO sync_agreed (id, data) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET data = excluded.data",
            (key, _merged_encoder.encode(merged.__dict__).decode()),
        )
    return True
