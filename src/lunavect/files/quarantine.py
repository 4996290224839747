"""Files a reader failed on: set aside until they change, remembered in the store, reported by `doctor`.

One malformed transcript, rollout or catalog entry must never stop its whole source, let alone the collector:
a reader that fails on a file skips that file (and only it) until the file changes, logs it once, and
records it here so that `lunavect doctor` can name it. Each source keeps a `Quarantine` in memory; what it
records goes to the store in the source's own commit, with everything else the poll found. What a server
answered in a shape no reader takes (Codex's app-server) is recorded the same way, by where it came from, for
as long as the server keeps answering so (`Quarantine.note`).
"""

from __future__ import annotations

import logging
import os
import sqlite3
from dataclasses import dataclass, field

import msgspec

# Kept in the collector's key-value table under this prefix, one key per file: no schema change needed.
KEY_PREFIX = "quarantine:"
# What is kept of the error: its type and the first words of its message (never a line of the file).
ERROR_CHARS = 200

log = logging.getLogger("lunavect.quarantine")


class Entry(msgspec.Struct, frozen=True):
    """One quarantined file, as `doctor` reports it."""

    source: str
    path: str
    error: str
    at: float


def _identity(path: str) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:ERROR_CHARS]


@dataclass
class Quarantine:
    """A source's set-aside files: each stays skipped while its identity, size and mtime are unchanged.

    The store holds what the last save said: at its first save a source drops the entries an earlier collector
    recorded for it that it has not found failing again, so a file fixed or removed meanwhile leaves `doctor`."""

    source: str
    _held: dict[str, tuple[int, int, int] | None] = field(default_factory=dict)
    _new: list[Entry] = field(default_factory=list)
    _released: list[str] = field(default_factory=list)
    _error_of: dict[str, str] = field(default_factory=dict)  # what failed, for entries that are no file
    _saved_once: bool = False

    def holds(self, path: str) -> bool:
        """True while `path` is set aside and has not changed since; a changed file is tried again."""
        if path not in self._held:
            return False
        if _identity(path) == self._held[path]:
            return True
        self.release(path)
        return False

    def put(self, path: str, exc: BaseException, now: float) -> None:
        """Set `path` aside after `exc`; logged once per file (with the traceback, for a bug report)."""
        self._held[path] = _identity(path)
        entry = Entry(self.source, path, describe(exc), now)
        self._new.append(entry)
        log.warning("%s: set aside %s until it changes (%s)", self.source, path, entry.error, exc_info=exc)

    def release(self, path: str) -> None:
        """`path` is no longer set aside (it changed, or it is gone)."""
        self._error_of.pop(path, None)
        if self._held.pop(path, False) is not False:
            self._released.append(path)

    def release_absent(self, present: set[str]) -> None:
        """Release every held path not in `present`: the files a listing no longer finds."""
        for path in [p for p in self._held if p not in present]:
            self.release(path)

    def note(self, failures: dict[str, str], now: float) -> None:
        """For what is no file (an answer of a server, by where it came from): hold exactly `failures` (where ->
        what failed), each recorded when it first fails or its error changes, and release the rest.

        Logged once when a place starts failing, not again while it keeps failing: a server that answers a
        varying number of bad threads changes the error ("... (and N more)") at every refresh, and the log
        would grow by a line per refresh for as long as it does. `doctor` shows the newest error."""
        for where in [w for w in self._held if w not in failures]:
            self.release(where)
        for where, error in failures.items():
            if where in self._held and self._error_of.get(where) == error:
                continue
            if where not in self._held:
                log.warning("%s: ignored what %s answered (%s)", self.source, where, error[:ERROR_CHARS])
            self._held[where] = None
            self._error_of[where] = error
            self._new.append(Entry(self.source, where, error[:ERROR_CHARS], now))

    def save(self, conn: sqlite3.Connection) -> None:
        """Record what changed since the last save; call inside the source's commit."""
        if not self._saved_once:
            self._saved_once = True
            for entry in entries(conn):
                if entry.source == self.source and entry.path not in self._held:
                    self._released.append(entry.path)
        for path in self._released:
            conn.execute("DELETE FROM collector WHERE key = ?", (KEY_PREFIX + path,))
        for entry in self._new:
            conn.execute(
                "INSERT INTO collector (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (KEY_PREFIX + entry.path, msgspec.json.encode(entry).decode()),
            )
        self._released.clear()
        self._new.clear()


_decoder = msgspec.json.Decoder(Entry)


def entries(conn: sqlite3.Connection) -> list[Entry]:
    """Every file a source has set aside, oldest first."""
    found = []
    for (value,) in conn.execute(
        "SELECT value FROM collector WHERE key >= ? AND key < ?", (KEY_PREFIX, KEY_PREFIX[:-1] + ";")
    ):
        try:
            found.append(_decoder.decode(value))
        except msgspec.DecodeError:
            continue
    return sorted(found, key=lambda e: e.at)
