"""The store: one SQLite file that every lunavect process shares.

WAL mode lets the one collector write while any number of front ends read. It keeps evidence (kinds, ids,
times, tool names: never private text), each session's folded facts, the last snapshot of every session,
the person's arrangement (pins, hidden, order), settings and counters. The schema is versioned with
`PRAGMA user_version`; each migration runs once, in order, in its own transaction.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from lunavect import paths
from lunavect.store.migrations import MIGRATIONS

BUSY_TIMEOUT_MS = 5000
# How long a stored event is kept to recognise the same event read again (its id). Every source re-reads
# within this: the spool by byte offsets committed with the events (a re-read only follows a crash between
# committing a cursor's removal and deleting its file), transcripts and rollouts by their cursors. A source
# that re-reads the same fact on every poll (a live catalog) needs only the newest event of its kind for each
# session, which pruning always spares.
DEDUP_WINDOW_S = 15 * 60.0

SCHEMA_VERSION = len(MIGRATIONS)
# `PRAGMA application_id` of a lunavect store ("LVCT"): a SQLite file at the store's path that is someone
# else's is refused, never taken over. Stores made before the mark are recognised by their tables.
APPLICATION_ID = 0x4C564354
_OWN_TABLES = frozenset({"events", "facts", "snapshot", "arrangement", "settings", "counters", "collector"})


class StoreError(Exception):
    """The store cannot be opened or is of a newer schema than this lunavect knows."""


def _create_private_file(path: Path) -> None:
    """Create the database file with mode 0600 before SQLite opens it (SQLite would use the umask)."""
    fd = os.open(path, os.O_CREAT | os.O_RDWR | os.O_NOFOLLOW, 0o600)
    os.close(fd)
    os.chmod(path, 0o600)


def connect(path: Path | None = None) -> sqlite3.Connection:
    """Open (creating and migrating as needed) the store."""
    path = path or paths.store_path()
    paths.ensure_private_dir(path.parent)
    if path.is_symlink():  # SQLite would follow it to whatever file it names
        raise StoreError(f"the store {path} is a symbolic link; lunavect keeps its store only as a file of its own")
    if not path.exists():
        _create_private_file(path)
    try:
        conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        check_ownership(conn)  # before anything is changed in a file that may not be ours
        _use_wal(conn)
        conn.execute("PRAGMA synchronous = NORMAL")
        migrate(conn)
    except (sqlite3.DatabaseError, StoreError) as exc:
        raise StoreError(f"cannot open the store {path}: {exc}") from None
    for suffix in ("-wal", "-shm"):
        side = Path(str(path) + suffix)
        if side.exists():
            try:
                os.chmod(side, 0o600)
            except OSError:
                pass
    return conn


def _use_wal(conn: sqlite3.Connection) -> None:
    """Put the store in WAL mode, waiting for a process that opens a new store at the same moment.

    Switching a new file's journal mode needs an exclusive lock for which SQLite does not call its busy
    handler, so two processes opening a new store together (the collector a front end just started, and the
    front end) saw "database is locked" at once in about one start in ten. Retrying within the busy timeout
    gives the same patience as every other statement.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def migrate(conn: sqlite3.Connection) -> None:
    """Bring the schema up to date. The version is read again inside the write transaction, so several
    processes opening a new store at once migrate it exactly once between them."""
    check_ownership(conn)
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise StoreError(f"the store has schema {version}; this lunavect knows up to {SCHEMA_VERSION}")
    if version == SCHEMA_VERSION:
        return
    with transaction(conn):
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        for number in range(version, SCHEMA_VERSION):
            # executescript would commit on its own; run the statements one by one inside our transaction.
            for statement in MIGRATIONS[number].split(";"):
                if statement.strip():
                    conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {max(version, SCHEMA_VERSION)}")
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")


def check_ownership(conn: sqlite3.Connection) -> None:
    """Raise StoreError unless the database is lunavect's: marked as ours, empty (a new store), or an older
    lunavect store (its tables, before the mark); a store of an older lunavect is marked here."""
    mark = conn.execute("PRAGMA application_id").fetchone()[0]
    if mark == APPLICATION_ID:
        return
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if mark == 0 and not tables:
        return  # a new store: the first migration marks it
    if mark == 0 and _OWN_TABLES <= tables:
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        return
    raise StoreError("it is not a lunavect store (another program's database); move it away or set $LUNAVECT_HOME")


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction: all of it is stored, or none of it."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def bump_counter(conn: sqlite3.Connection, name: str, by: int = 1) -> None:
    conn.execute(
        "INSERT INTO counters (name, value) VALUES (?, ?) "
        "ON CONFLICT (name) DO UPDATE SET value = value + excluded.value",
        (name, by),
    )


def counters(conn: sqlite3.Connection) -> dict[str, int]:
    return dict(conn.execute("SELECT name, value FROM counters ORDER BY name").fetchall())


def set_collector_value(conn: sqlite3.Connection, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO collector (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


def collector_values(conn: sqlite3.Connection) -> dict[str, str]:
    return dict(conn.execute("SELECT key, value FROM collector").fetchall())


# -- settings: the one accessor (every setting of every part of lunavect is a row of `settings`) -------------


def get_setting(conn: sqlite3.Connection, key: str, default: str | None = None) -> str | None:
    row = conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
    return str(row[0]) if row else default


def set_setting(conn: sqlite3.Connection, key: str, value: str | None) -> None:
    """Store a setting; None removes it (back to its default). One statement: it commits on its own, or with
    the caller's transaction when there is one."""
    if value is None:
        conn.execute("DELETE FROM settings WHERE key = ?", (key,))
    else:
        conn.execute(
            "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )


def set_settings(conn: sqlite3.Connection, values: dict[str, str]) -> None:
    """Several settings in one transaction: all of them are stored, or none."""
    with transaction(conn):
        for key, value in values.items():
            set_setting(conn, key, value)


def setting_once(conn: sqlite3.Connection, key: str, value: str) -> str:
    """The setting's value, storing `value` first when it has none (two processes asking at once agree)."""
    conn.execute("INSERT OR IGNORE INTO settings (key, value) VALUES (?, ?)", (key, value))
    return str(conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()[0])


def settings_under(conn: sqlite3.Connection, prefix: str) -> dict[str, str]:
    """Every setting whose key starts with `prefix` (taken literally), by key."""
    rows = conn.execute("SELECT key, value FROM settings WHERE substr(key, 1, ?) = ?", (len(prefix), prefix))
    return {str(key): str(value) for key, value in rows}


def latest_event_time(conn: sqlite3.Connection, provider: str | None = None) -> float | None:
    """When the newest event (of `provider`) happened: an index lookup (`events_by_provider_at`, `events_by_at`)."""
    if provider is None:
        row = conn.execute("SELECT MAX(at) FROM events").fetchone()
    else:
        row = conn.execute("SELECT MAX(at) FROM events WHERE provider = ?", (provider,)).fetchone()
    return row[0] if row else None


def prune_events(
    conn: sqlite3.Connection, now: float, window: float = DEDUP_WINDOW_S, since: float | None = None
) -> int:
    """Delete events stored more than `window` ago, sparing the newest event of each kind of each session.

    The events table is only a de-duplication memory (each session's facts are folded already), so it needs
    what a source may read again. A live catalog re-reads its current entry on every poll, under the same id,
    for as long as the entry stays: the newest event of its kind, which is spared, so re-reading it never
    folds it twice. Returns how many events were deleted; call inside a transaction.

    `since` is the previous prune's cut (its `now - window`, no later than this one's): a session's kind with no
    event stored since then has only its newest left, so only the kinds with an event stored since are looked
    at, and a prune costs what was stored lately, not every session ever seen. None looks at every event, once
    the stored_at index shows one older than the window.
    """
    cut = now - window
    if since is None or since > cut:
        if (
            conn.execute("SELECT 1 FROM events INDEXED BY events_by_stored_at WHERE stored_at < ?", (cut,)).fetchone()
            is None
        ):
            return 0  # nothing is that old (a first start's prune, with every event just stored): no scan of them all
        cursor = conn.execute(
            "DELETE FROM events WHERE stored_at < ? AND seq NOT IN "
            "(SELECT MAX(seq) FROM events GROUP BY provider, session_id, kind)",
            (cut,),
        )
        return cursor.rowcount
    cursor = conn.execute(
        # The kinds stored since the last cut, found by the stored_at index (which the planner, knowing nothing of
        # how few rows that is, would otherwise pass over for a scan), each with its newest event.
        "WITH touched AS (SELECT DISTINCT provider, session_id, kind FROM events INDEXED BY events_by_stored_at "
        "WHERE stored_at >= ?), newest AS (SELECT t.provider, t.session_id, t.kind, (SELECT MAX(e.seq) FROM events "
        "AS e WHERE e.provider = t.provider AND e.session_id = t.session_id AND e.kind = t.kind) AS seq FROM touched "
        "AS t) DELETE FROM events WHERE seq IN (SELECT e.seq FROM newest AS n JOIN events AS e ON e.provider = "
        "n.provider AND e.session_id = n.session_id AND e.kind = n.kind WHERE e.stored_at < ? AND e.seq < n.seq)",
        (since, cut),
    )
    return cursor.rowcount
