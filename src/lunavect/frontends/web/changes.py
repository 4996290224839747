"""Hearing that the store changed: an async iterator that yields once per batch of commits by any connection.

It watches SQLite's `PRAGMA data_version`, which moves whenever another connection commits (the collector, a
`lunavect pin`, the terminal panel, this server's own writes on its other connection). Asking it is a read of
the WAL index in shared memory, no file read, so ten times a second costs next to nothing; the server reads
the list once per signal, however many browsers are connected. This is the web panel's own adapter until the
collector's change feed is shared by every front end; it has the same shape, an async iterator of signals.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Callable

from lunavect.store import StoreError

POLL_INTERVAL_S = 0.1


async def store_changes(
    connect: Callable[[], sqlite3.Connection], interval: float = POLL_INTERVAL_S
) -> AsyncIterator[None]:
    """Yield after each change to the store (several commits between two looks make one signal).

    A store that cannot be read for a moment (locked, being replaced) is asked again at the next look; the
    iterator itself never fails for it.
    """
    conn: sqlite3.Connection | None = None
    seen: int | None = None
    try:
        while True:
            try:
                if conn is None:
                    conn = connect()
                version = conn.execute("PRAGMA data_version").fetchone()[0]
            except (sqlite3.Error, OSError, StoreError):
                version = None
                if conn is not None:
                    conn.close()
                    conn = None
            if version is not None and version != seen:
                first = seen is None
                seen = version
                if not first:
                    yield None
            await asyncio.sleep(interval)
    finally:
        if conn is not None:
            conn.close()
