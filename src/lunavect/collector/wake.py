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
`lunavect list` waited in vain for its tick.)
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path

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
        if self._inotify is None:
            from watchfiles._rust_notify import RustNotify

            # Arguments: paths, debug, force_polling, poll_delay_ms, recursive, ignore_permission_denied.
            self._notify = RustNotify([str(data_dir)], False, False, 300, True, True)

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
