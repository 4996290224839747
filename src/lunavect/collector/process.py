"""The one collector per machine, seen from outside: who holds the lock, starting one on demand, waiting until
it has caught up, waking it early.

Front ends use this, never the collector itself: starting a collector is running `python -m lunavect daemon`
in the background, so nothing here imports the sources or the rules, and a front end stays clear of every
client's package.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from lunavect import paths, store
from lunavect.core.times import elapsed

POKE_FILE_NAME = "poke"
# How long a front end waits for a collector it started, or for the collector to catch up with the spool.
CATCH_UP_TIMEOUT_S = 5.0
# How long a collector just started may take to hold its lock (it exits at once when it cannot run).
START_TIMEOUT_S = 30.0
# A running collector commits when a tick starts as its heartbeat: at most every 5 s, and at rest it ticks at
# least every 20 s (its safety sweep). One whose last tick started longer ago than this is behind, and what the
# store says may be out of date. (Kept here, not read from the collector: front ends never import it.)
BEHIND_AFTER_S = 60.0


def lock_path() -> Path:
    return paths.data_dir() / paths.LOCK_FILE_NAME


def try_lock() -> int | None:
    """The lock's file descriptor if this process may be the collector, else None."""
    paths.ensure_private_dir(paths.data_dir())
    fd = os.open(lock_path(), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    return fd


def is_running() -> bool:
    """True when some process holds the collector lock. Asked read-only (a lock needs no write access): on a
    data folder that cannot be written, or a lock file that cannot be read, no collector of this user's can run
    there, and the answer is False rather than an error."""
    try:
        fd = os.open(lock_path(), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def collector_pid() -> int | None:
    try:
        return int(lock_path().read_text().strip() or 0) or None
    except (OSError, ValueError):
        return None


def ensure_running() -> bool:
    """Start a collector in the background unless one runs; True when one runs now."""
    if is_running():
        return True
    data = paths.ensure_private_dir(paths.data_dir())
    log_fd = os.open(data / paths.LOG_FILE_NAME, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    log_file = os.fdopen(log_fd, "ab")  # noqa: SIM115 - handed to the child
    try:
        child = subprocess.Popen(
            [sys.executable, "-m", "lunavect", "daemon", "--quiet"],
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=log_file,
            start_new_session=True,
            close_fds=True,
        )
    finally:
        log_file.close()
    # A loaded machine can take seconds to start an interpreter: wait while the child lives (one that exited,
    # say on a folder it cannot write, is an answer at once), so that a slow start is not taken for no collector
    # and the front end never goes on without waiting for it (CI: `open` found no session a hook had just sent).
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if is_running():
            return True
        if child.poll() is not None:
            break
        time.sleep(0.02)
    return is_running()


def wait_caught_up(conn: sqlite3.Connection, timeout: float = CATCH_UP_TIMEOUT_S) -> bool:
    """Wait until the collector has ingested everything spooled before this call, and snapshotted it.

    Front ends call this so that what they show includes every event already delivered: a hook event
    followed by `lunavect list` always shows that event's effect.
    """
    started = time.time()
    poke()
    deadline = time.monotonic() + timeout
    pauses = catch_up_pauses()
    while True:
        tick = last_tick(conn)
        if tick is not None and tick >= started:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(next(pauses))


def catch_up_pauses() -> Iterator[float]:
    """The pauses between two looks at the collector's heartbeat while a front end waits: 1 ms, then twice the
    last, up to 10 ms. A collector at rest answers a poke in about 2 ms, and a flat 10 ms pause made every
    `list`, `counts`, `status` and `usage` wait 8 ms more than that (a tenth of `usage`'s whole run, which
    bench/peer.py holds to a tenth of ccusage's); a collector still busy is looked at every 10 ms, as before."""
    pause = 0.001
    while True:
        yield pause
        pause = min(pause * 2, 0.01)


def last_tick(conn: sqlite3.Connection) -> float | None:
    """When the collector's last tick started (its heartbeat in the store), or None before its first."""
    value = store.collector_values(conn).get("tick_started")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def staleness(conn: sqlite3.Connection, now: float | None = None) -> str | None:
    """Why what the store holds may be out of date, in a few words, or None while a collector runs and ticked
    within `BEHIND_AFTER_S`: the one judgement behind every front end's "not current" warning (the CLI waits
    for a tick instead, `wait_caught_up`, and warns when none comes). Raises `sqlite3.Error` when the store
    cannot be read, which is a reason of its own for the caller to say."""
    now = time.time() if now is None else now
    tick = last_tick(conn)
    if not is_running():
        return "the collector is not running" + (f" (last tick {elapsed(now - tick)} ago)" if tick else "")
    if tick is None:
        return "the collector has not ticked yet"
    if now - tick > BEHIND_AFTER_S:
        return f"the collector is behind (last tick {elapsed(now - tick)} ago)"
    return None


def poke() -> None:
    """Wake the collector now rather than at its next timed tick (it watches the spool folder)."""
    try:
        target = paths.ensure_private_dir(paths.spool_dir()) / POKE_FILE_NAME
    except OSError:
        return
    paths.write_marker(target, repr(time.time()).encode())


def holds_lock_file(fd: int) -> bool:
    """True while the lock file in the data folder is the one this collector locked: a data folder deleted
    (and recreated by this collector's own start-up) no longer holds it."""
    try:
        return os.stat(lock_path()).st_ino == os.fstat(fd).st_ino
    except OSError:
        return False
