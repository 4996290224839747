"""Failures that must neither stop lunavect nor go unnoticed: logged at a bounded rate, counted, and the last
one kept in the store for `lunavect doctor`.

A source that fails on every tick (a bug a file triggers, a setting that cannot be read) must neither fill the
disk with a traceback a second nor go unnoticed: each distinct failure is logged with its traceback once, then
at most once every `REPEAT_S` with a count, and the newest is recorded where `doctor` reads it.

The serving loops (the notifier, the tmux publisher, sync, the HTTP hook listener, the change feed) run on
threads of their own beside the collector's tick. An exception that escaped one of them used to end its thread
in silence, until the collector restarted: a bar kept its old count, a notification never came. `Loop` is the
one guard they share: a failed step is noted here (logged, counted per loop, the last one kept) and the loop
goes on with its next step.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass

from lunavect import store

LAST_ERROR_KEY = "last_error"
REPEAT_S = 600.0
ERROR_CHARS = 200
# Per serving loop, in the collector's key-value table: `loop_failure:<loop>` holds {"count", "error", "at"}.
LOOP_KEY_PREFIX = "loop_failure:"
# A loop that fails at once again and again waits this long between steps, so that it never spins on a fault.
LOOP_PAUSE_S = 1.0


def describe(exc: BaseException) -> str:
    """An exception in one short line (its type and message), as the log, the store and doctor show it."""
    return f"{type(exc).__name__}: {exc}"[:ERROR_CHARS]


class Errors:
    """One process's failures, by where they happened and what they were."""

    def __init__(self, log: logging.Logger) -> None:
        self.log = log
        self._seen: dict[tuple[str, str], tuple[float, int]] = {}

    def note(self, conn: sqlite3.Connection | None, where: str, exc: BaseException, now: float | None = None) -> None:
        now = time.time() if now is None else now
        text = describe(exc)
        self._log(where, text, exc, now)
        if conn is None:
            return
        try:
            store.set_collector_value(conn, LAST_ERROR_KEY, json.dumps({"where": where, "error": text, "at": now}))
        except sqlite3.Error:
            pass  # the store itself is what fails: the log has it

    def _log(self, where: str, text: str, exc: BaseException, now: float) -> None:
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


@dataclass(frozen=True)
class LoopFailure:
    """What `doctor` says of one serving loop: how often a step failed since the collector started, the last."""

    loop: str
    count: int
    error: str
    at: float


class Loop:
    """The guard of one serving loop: `failed(exc)` after a step raised, then the loop takes its next step.

    `connect` opens a connection of the loop's own for the record (the loop's connection may be what failed);
    a store that cannot be written leaves the failure in the log only. Thread-safe for its one loop.
    """

    def __init__(
        self,
        name: str,
        log: logging.Logger,
        connect: Callable[[], sqlite3.Connection] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.name = name
        self.count = 0
        self._errors = Errors(log)
        self._connect = connect or store.connect
        self._clock = clock
        self._failed_at: float | None = None

    def failed(self, exc: BaseException) -> None:
        now = self._clock()
        self.count += 1
        self._errors.note(None, self.name, exc, now)
        record = json.dumps({"count": self.count, "error": describe(exc), "at": now})
        try:
            conn = self._connect()
        except Exception:  # noqa: BLE001 - the store is what fails: the log has it
            return
        try:
            store.set_collector_value(conn, LOOP_KEY_PREFIX + self.name, record)
        except sqlite3.Error:
            pass
        finally:
            conn.close()

    def pause(self) -> float:
        """How long to wait before the next step: nothing after a good step, `LOOP_PAUSE_S` after a failed step
        that followed another within that time (a fault that repeats at once must not spin a core)."""
        now = self._clock()
        quick = self._failed_at is not None and now - self._failed_at < LOOP_PAUSE_S
        self._failed_at = now
        return LOOP_PAUSE_S if quick else 0.0

    def step(self, body: Callable[[], object]) -> bool:
        """Run one step of the loop; True when it went well. A failure is noted, never raised."""
        try:
            body()
        except Exception as exc:  # noqa: BLE001 - the loop goes on: that is the point
            self.failed(exc)
            wait = self.pause()
            if wait:
                time.sleep(wait)
            return False
        return True


def forget_loops(conn: sqlite3.Connection) -> None:
    """A collector starting: the failures of the serving loops of the one before are no longer news."""
    conn.execute("DELETE FROM collector WHERE substr(key, 1, ?) = ?", (len(LOOP_KEY_PREFIX), LOOP_KEY_PREFIX))


def loop_failures(conn: sqlite3.Connection) -> list[LoopFailure]:
    """Each serving loop that failed since the collector started, as `Loop.failed` recorded it."""
    found: list[LoopFailure] = []
    for key, value in sorted(store.collector_values(conn).items()):
        if not key.startswith(LOOP_KEY_PREFIX):
            continue
        try:
            data = json.loads(value)
            found.append(
                LoopFailure(key[len(LOOP_KEY_PREFIX) :], int(data["count"]), str(data["error"]), float(data["at"]))
            )
        except (ValueError, KeyError, TypeError):
            continue
    return found
