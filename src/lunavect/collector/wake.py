"""What wakes the collector: a notification, never the clock alone, when nothing it shows can change by itself.

On Linux the collector's own folders (the data folder, for the store's WAL and the sources' request marker,
and the hook spool) are watched with inotify and waited on in a blocking read (files/inotify.py): no thread
runs while nothing changes, and a hook event, a front end's poke or another process's commit wakes it within
the kernel's delivery, whatever the front ends listening. Elsewhere (or when the kernel refuses an inotify
instance) it is one recursive watch through watchfiles' documented Rust backend, whose `watch` takes its
polling step and timeout per call: 10 ms steps while a session is live or a front end listens (a hook event
shows within a few steps), coarser steps at rest. That step is what such a watch costs: each step wakes a
thread (about 25 µs), so a 10 ms step alone is a quarter of a percent of a core whether anything happens or
not. The sources' own watches (transcripts, rollouts, the live catalog, `files/changed.py`) wake it through
`set`, from their threads, by writing a marker file in the watched folder: their request arrives in the same
change set as the spool's and the WAL's. (Ending the watch through its stop event instead made watchfiles
forget every change gathered in that step: a poke that came with a source's request was lost, and
`lunavect list` waited in vain for its tick.) That backend (`watchfiles._rust_notify`) is watchfiles' private
API: when a new watchfiles changes it, the collector looks at its folders' entries every step instead
(`_Stats`), says so in its log, and `lunavect doctor` names it (`rust_problem`).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lunavect.collector.process import POKE_FILE_NAME
from lunavect.files import inotify
from lunavect.paths import write_marker

# Polling steps of the watch: while any session is live, and at rest (a hook event then shows within two steps).
ACTIVE_STEP_MS = 10
REST_STEP_MS = 50
# A blocking wait still looks this often whether the collector was asked to stop (nothing else wakes it for that).
STOP_CHECK_S = 1.0
# Written in the data folder by a source's request for a tick (`Wake.set`).
WAKE_FILE_NAME = "collector-wake"

log = logging.getLogger("lunavect.collector")


def rust_notify(folder: Path) -> Any:
    """watchfiles' Rust watch of `folder`, recursive; a ValueError naming what failed when this watchfiles'
    private backend no longer takes what it took (its arguments are positional: paths, debug, force_polling,
    poll_delay_ms, recursive, ignore_permission_denied)."""
    try:
        from watchfiles._rust_notify import RustNotify

        if not callable(getattr(RustNotify, "watch", None)) or not callable(getattr(RustNotify, "close", None)):
            raise TypeError("RustNotify has no watch() and close()")
        notify = RustNotify([str(folder)], False, False, 300, True, True)
    except Exception as exc:  # noqa: BLE001 - whatever a changed private API raises, the stat watch stands in
        raise ValueError(f"watchfiles' Rust backend cannot be used ({type(exc).__name__}: {exc})") from None
    return notify


def rust_problem(folder: Path) -> str | None:
    """What `lunavect doctor` says when the collector would fall back to `_Stats` here, or None."""
    try:
        rust_notify(folder).close()
    except ValueError as exc:
        return f"{exc}: the collector looks at its folders every step instead (upgrade lunavect)"
    return None


@dataclass
class Woken:
    """Why one wait ended: several at once, or none (the timeout)."""

    spooled: bool = False  # something arrived in the hook spool (a hook event, a front end's poke)
    poked: bool = False  # a front end's poke among them: it waits for a whole tick
    committed: bool = False  # the store's WAL changed: perhaps another process committed
    files: bool = False  # a source's watch saw its files change
    stopped: bool = False


class Wake:
    """Waits for the next reason to tick: a change in the spool or the WAL, a source's files, or a timeout."""

    def __init__(self, data_dir: Path, spool_dir: Path, wal: Path, stop: threading.Event) -> None:
        self._spool, self._wal = str(spool_dir), str(wal)
        self._marker = str(data_dir / WAKE_FILE_NAME)
        self._stop = stop
        self._files = threading.Event()  # a request whose marker could not be written
        self._inotify: _Folders | None = None
        self._notify = None
        if inotify.available():
            try:
                self._inotify = _Folders(data_dir, spool_dir, wal)
            except OSError:
                self._inotify = None
        self._stats: _Stats | None = None
        if self._inotify is None:
            try:
                self._notify = rust_notify(data_dir)
            except ValueError as exc:
                log.warning("%s: looking at the data folder every step instead", exc)
                self._stats = _Stats(data_dir, spool_dir, wal)

    @property
    def polls(self) -> bool:
        """True when waiting costs a step of the watch (watchfiles); False when it blocks (inotify)."""
        return self._inotify is None

    def set(self) -> None:
        """Ask for a tick (from any thread): a source's watch saw its files change.

        The marker's change is the request: one request is seen once, also when it comes during a tick. Only
        when the marker cannot be written does the flag stand in (seen when the current wait times out)."""
        if not write_marker(self._marker, b"1"):
            self._files.set()

    def wait(self, timeout_s: float, step_ms: int) -> Woken:
        """Wait up to `timeout_s` for a change that matters; what arrives during a tick is kept for the next
        wait (the watch's thread collects it meanwhile)."""
        woken = Woken()
        deadline = time.monotonic() + timeout_s
        while True:
            if self._files.is_set():
                self._files.clear()
                woken.files = True
            if self._stop.is_set():
                woken.stopped = True
            if woken.files or woken.stopped:
                return woken
            left = deadline - time.monotonic()
            if left <= 0:
                return woken
            if self._inotify is not None:
                self._inotify.wait(min(left, STOP_CHECK_S), woken)
                if woken.spooled or woken.committed or woken.files:
                    return woken
                continue
            if self._stats is not None:
                self._stats.wait(min(left, step_ms / 1000), woken, self._stop)
                if woken.spooled or woken.committed or woken.files:
                    return woken
                continue
            assert self._notify is not None
            found = self._notify.watch(step_ms, step_ms, max(1, int(left * 1000)), self._stop)
            if found in ("stop", "signal"):
                woken.stopped = True
                return woken
            if found == "timeout":
                return woken
            assert isinstance(found, set)
            for _change, path in found:
                if path == self._wal:
                    woken.committed = True
                elif path == self._marker:
                    woken.files = True
                elif str(Path(path).parent) == self._spool:
                    woken.spooled = True
                    woken.poked = woken.poked or Path(path).name == POKE_FILE_NAME
            if woken.spooled or woken.committed or woken.files:
                return woken
            # Only files nobody ticks for (the log): wait for the rest of the time.

    def close(self) -> None:
        if self._inotify is not None:
            self._inotify.close()
        if self._notify is not None:
            self._notify.close()


class _Folders:
    """The data folder and the spool, watched with inotify (not recursively: nothing else there wakes it)."""

    def __init__(self, data_dir: Path, spool_dir: Path, wal: Path) -> None:
        self._watch = inotify.Inotify()
        try:
            self._data = self._watch.add(str(data_dir))
            self._spool = self._watch.add(str(spool_dir))
        except OSError:
            self._watch.close()
            raise
        self._wal_name, self._marker_name, self._spool_name = wal.name, WAKE_FILE_NAME, spool_dir.name

    def wait(self, timeout_s: float, woken: Woken) -> None:
        """Wait up to `timeout_s` for the events that matter and mark them in `woken`."""
        for wd, mask, name in self._watch.read(timeout_s):
            if mask & inotify.IN_Q_OVERFLOW:
                woken.spooled = woken.poked = woken.committed = woken.files = True  # anything may have changed
            elif wd == self._spool or (wd == self._data and name == self._spool_name):
                woken.spooled = True  # a hook event or a poke; or the spool folder itself went (the tick says)
                woken.poked = woken.poked or name in (POKE_FILE_NAME, "")
            elif wd == self._data and name == self._wal_name:
                woken.committed = True
            elif wd == self._data and name == self._marker_name:
                woken.files = True
            elif wd == self._data and not name and mask & (inotify.IN_DELETE_SELF | inotify.IN_IGNORED):
                woken.spooled = True  # the data folder went: the loop's look at it stops the collector

    def close(self) -> None:
        self._watch.close()


class _Stats:
    """The stand-in for watchfiles' backend: each step, the spool's entries, the WAL and the request marker by
    their size and time (a hook event appends to a spool file, which changes no folder's time)."""

    def __init__(self, data_dir: Path, spool_dir: Path, wal: Path) -> None:
        self._spool, self._wal, self._marker = spool_dir, wal, data_dir / WAKE_FILE_NAME
        self._seen = self._look()

    def _look(self) -> tuple[dict[str, tuple[int, int]], tuple[int, int] | None, tuple[int, int] | None]:
        entries: dict[str, tuple[int, int]] = {}
        try:
            with os.scandir(self._spool) as found:
                for entry in found:
                    try:
                        info = entry.stat()
                    except OSError:
                        continue
                    entries[entry.name] = (info.st_mtime_ns, info.st_size)
        except OSError:
            pass
        return entries, _stamp(self._wal), _stamp(self._marker)

    def wait(self, step_s: float, woken: Woken, stop: threading.Event) -> None:
        """Sleep one step (or until stopped), then mark in `woken` what changed since the last look."""
        stop.wait(step_s)
        now = self._look()
        (spool, wal, marker), (spool_was, wal_was, marker_was) = now, self._seen
        self._seen = now
        changed = {name for name in spool.keys() | spool_was.keys() if spool.get(name) != spool_was.get(name)}
        woken.spooled = woken.spooled or bool(changed)
        woken.poked = woken.poked or POKE_FILE_NAME in changed
        woken.committed = woken.committed or wal != wal_was
        woken.files = woken.files or marker != marker_was


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size
