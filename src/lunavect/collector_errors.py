"""The collector's failures: logged at a bounded rate, the last one kept in the store for `lunavect doctor`.

A source that fails on every tick (a bug a file triggers, a setting that cannot be read) must neither fill the
disk with a traceback a second nor go unnoticed: each distinct failure is logged with its traceback once, then
at most once every `REPEAT_S` with a count, and the newest is recorded where `doctor` reads it.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time

from lunavect import store

LAST_ERROR_KEY = "last_error"
REPEAT_S = 600.0
ERROR_CHARS = 200


class Errors:
    """One collector's failures, by where they happened and what they were."""

    def __init__(self, log: logging.Logger) -> None:
        self.log = log
        self._seen: dict[tuple[str, str], tuple[float, int]] = {}

    def note(self, conn: sqlite3.Connection, where: str, exc: BaseException, now: float | None = None) -> None:
        now = time.time() if now is None else now
        text = f"{type(exc).__name__}: {exc}"[:ERROR_CHARS]
        key = (where, text)
        logged_at, count = self._seen.get(key, (None, 0))
        if logged_at is None:
            self.log.error("%s failed: %s", where, text, exc_info=exc)
            self._seen[key] = (now, 0)
        elif now - logged_at >= REPEAT_S:
            self.log.error("%s failed %d more times since: %s", where, count + 1, text)
            self._seen[key] = (now, 0)
        else:
            self._seen[key] = (logged_at, count + 1)
        try:
            store.set_collector_value(conn, LAST_ERROR_KEY, json.dumps({"where": where, "error": text, "at": now}))
        except sqlite3.Error:
            pass  # the store itself is what fails: the log has it


def last(conn: sqlite3.Connection) -> dict | None:
    """The collector's newest recorded failure: where, what, when."""
    value = store.collector_values(conn).get(LAST_ERROR_KEY)
    if value is None:
        return None
    try:
        found = json.loads(value)
    except ValueError:
        return None
    return found if isinstance(found, dict) else None
