"""The change feed: how a front end hears that what it shows changed, the moment the store commits it.

The collector is the one writer that matters to a live view, so it tells its subscribers itself: it listens on
a unix socket in the (private) data folder and sends one byte to every subscriber right after a commit that
changes what front ends show (snapshot rows, the setup report), and after a commit by any other process
(someone pinned or hid a session from another front end: the collector sees the store's WAL change under a
`PRAGMA data_version` it did not cause). Its own bookkeeping commits (the tick time, cursors) wake nobody.

A front end subscribes with `Feed`: `for _ in Feed(...)` blocks until the next change, `async for _ in
Feed(...).changes()` is the same for asyncio front ends. When no collector listens (none started yet, or
`--no-collector`), the feed falls back to what every front end did before: checking `PRAGMA data_version` on a
connection of its own every `FALLBACK_POLL_S`, and it tries the socket again each time. Each (re)connection
and each fallback check that saw a commit yields one change, so a subscriber never misses one made while it
was switching: it reloads once too often rather than once too few. Several notifications that arrive before
the subscriber reads them are coalesced into one.

The collector's accepting and publishing run under `lunavect.faults.Loop`: whatever fails there (out of
descriptors at accept, one subscriber's socket) is logged, counted and shown by `lunavect doctor`, and the feed
goes on; an accept that failed once used to end the accepting thread, and no front end could subscribe again
until the collector restarted.

The socket path can exceed the 107 bytes a unix socket address allows (a deep temporary folder): then the
folder is reached through `/proc/self/fd/N`, which is short.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import socket
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from lunavect import paths

if TYPE_CHECKING:
    from lunavect.faults import Loop

SOCKET_NAME = "changes.sock"
FALLBACK_POLL_S = 0.25
_MAX_SUN_PATH = 100
_NOTICE = b"\x01"
LOOP_NAME = "change feed"
log = logging.getLogger(__name__)


def socket_path(data: Path | None = None) -> Path:
    return (data or paths.data_dir()) / SOCKET_NAME


@contextlib.contextmanager
def _address(path: Path) -> Iterator[str]:
    """An address for `path` short enough for a unix socket."""
    if len(os.fsencode(path)) <= _MAX_SUN_PATH:
        yield str(path)
        return
    fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        yield f"/proc/self/fd/{fd}/{path.name}"
    finally:
        os.close(fd)


def connect(path: Path | None = None) -> socket.socket | None:
    """A subscription to the collector's notifications, or None when no collector listens."""
    path = path or socket_path()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        with _address(path) as address:
            sock.connect(address)
    except OSError:
        sock.close()
        return None
    return sock


# -- the collector's side ------------------------------------------------------------------------------------


class Publisher:
    """The collector's end: accepts subscribers in a thread and notifies them all without ever blocking.

    A subscriber whose socket buffer is full already has a notification waiting, so a send that would block
    is simply skipped; a subscriber that went away is dropped on the next notification.
    """

    def __init__(self, path: Path | None = None, guard: Loop | None = None) -> None:
        from lunavect.faults import Loop  # only the collector publishes: front ends need not import the store

        self.path = path or socket_path()
        self._guard = guard or Loop(LOOP_NAME, log)
        self._subscribers: list[socket.socket] = []
        self._lock = threading.Lock()
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()  # left by a collector that was killed; the lock says we are the collector now
        with _address(self.path) as address:
            self._server.bind(address)
        os.chmod(self.path, 0o600)
        self._server.listen(64)
        # Accepted by the thread when one connects, and by `publish` first: a connection the kernel has
        # completed is the front end's subscription already (its feed reloaded on connecting), so a change
        # published before the thread took it must reach it too.
        self._server.setblocking(False)
        self._waiting = select.poll()
        self._waiting.register(self._server, select.POLLIN)
        self._closed = False
        self._thread = threading.Thread(target=self._accept, name="lunavect-changes", daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._closed:
            self._guard.step(self._accept_one)

    def _accept_one(self) -> None:
        """Sleep until a front end connects (`close` wakes it), then take every connection waiting."""
        try:
            self._waiting.poll()
        except OSError:
            if self._closed:
                return
            raise
        if self._closed:
            return
        with self._lock:
            self._take_waiting()

    def _take_waiting(self) -> None:
        """Accept every connection waiting, with the lock held. Raises what accept raises (out of
        descriptors, say): the caller counts it, and the connection waits for the next try."""
        while True:
            try:
                sock, _ = self._server.accept()
            except BlockingIOError:
                return
            except OSError:
                if self._closed:
                    return
                raise
            try:
                sock.setblocking(False)
            except BaseException:
                sock.close()
                raise
            self._subscribers.append(sock)

    @property
    def subscribers(self) -> int:
        with self._lock:
            return len(self._subscribers)

    def listened(self) -> bool:
        """True while some front end subscribes (the collector then watches in fine steps, so that a change
        reaches it quickly); subscribers that went away are dropped here rather than at the next publish,
        which may not come for a long time at rest."""
        with self._lock:
            kept = []
            for sock in self._subscribers:
                try:
                    gone = sock.recv(1, socket.MSG_PEEK) == b""
                except BlockingIOError:
                    gone = False  # open, nothing sent: a subscriber never writes
                except OSError:
                    gone = True
                if gone:
                    sock.close()
                else:
                    kept.append(sock)
            self._subscribers = kept
            return bool(kept)

    def publish(self) -> None:
        """Tell every subscriber that the store changed. A subscriber whose socket fails in any way is dropped
        (it subscribes again, or falls back to checking the store); the others hear of the change all the same."""
        failed: list[Exception] = []
        with self._lock:
            try:
                self._take_waiting()
            except Exception as exc:  # noqa: BLE001 - those taken already still hear of the change
                failed.append(exc)
            kept = []
            for sock in self._subscribers:
                try:
                    sock.send(_NOTICE)
                except BlockingIOError:
                    pass  # a notification is already waiting there
                except OSError:
                    sock.close()
                    continue
                except Exception as exc:  # noqa: BLE001 - one subscriber must not keep the news from the rest
                    failed.append(exc)
                    with contextlib.suppress(Exception):
                        sock.close()
                    continue
                kept.append(sock)
            self._subscribers = kept
        for failure in failed:  # noted outside the lock: the note writes to the store
            self._guard.failed(failure)

    def close(self) -> None:
        self._closed = True
        with contextlib.suppress(OSError):
            self._server.shutdown(socket.SHUT_RDWR)
        self._server.close()
        self._thread.join(timeout=1)
        with self._lock:
            for sock in self._subscribers:
                sock.close()
            self._subscribers = []
        with contextlib.suppress(OSError):
            self.path.unlink()


class ExternalCommits:
    """Commits by other processes, seen on the collector's own connection: `PRAGMA data_version` changes only
    when another connection commits."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._version = self._read()

    def _read(self) -> int:
        return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    def changed(self) -> bool:
        version = self._read()
        if version == self._version:
            return False
        self._version = version
        return True


# -- a front end's side --------------------------------------------------------------------------------------


class Feed:
    """One front end's subscription: iterate it (blocking) or `changes()` (asyncio); each item is one change.

    `version` reads `PRAGMA data_version` for the fallback; by default the feed opens its own connection to
    the store. `stop` ends the blocking iteration within one fallback interval; without one, a subscribed
    feed waits on its socket alone.
    """

    def __init__(
        self,
        *,
        path: Path | None = None,
        version: Callable[[], int] | None = None,
        fallback_s: float = FALLBACK_POLL_S,
        stop: threading.Event | None = None,
    ) -> None:
        self.path = path or socket_path()
        self._version_reader = version
        self._conn: sqlite3.Connection | None = None
        self._version: int | None = None
        self.fallback_s = fallback_s
        # Without a `stop` to watch, a subscribed feed can block on its socket with no timeout at all: a
        # persistent script (`status --follow`) then never wakes while nothing changes.
        self._stoppable = stop is not None
        self.stop = stop or threading.Event()
        self._sock: socket.socket | None = None
        self._started = False

    def _start(self) -> None:
        if not self._started:
            self._started = True
            self._version = self._data_version()
            self._subscribe()

    @property
    def subscribed(self) -> bool:
        """True while the collector notifies this feed (False: the data_version fallback)."""
        return self._sock is not None

    def _data_version(self) -> int | None:
        try:
            if self._version_reader is not None:
                return self._version_reader()
            if self._conn is None:
                from lunavect import store

                self._conn = store.connect()
            return int(self._conn.execute("PRAGMA data_version").fetchone()[0])
        except (sqlite3.Error, OSError):
            return None

    def _fallback_changed(self) -> bool:
        version = self._data_version()
        changed = version is not None and self._version is not None and version != self._version
        self._version = version
        return changed

    def _subscribe(self) -> bool:
        """Try the socket; True when this just connected (a change may have been missed meanwhile)."""
        if self._sock is not None:
            return False
        self._sock = connect(self.path)
        return self._sock is not None

    def _lost(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        self._version = self._data_version()

    # -- blocking --------------------------------------------------------------------------------------------

    def __iter__(self) -> Iterator[None]:
        self._start()
        while not self.stop.is_set():
            if self.wait():
                yield None

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the next change (True) or `timeout` or `stop` (False)."""
        self._start()
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.stop.is_set():
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return False
            if self._sock is not None:
                if left is None and not self._stoppable:
                    self._sock.settimeout(None)
                else:
                    self._sock.settimeout(self.fallback_s if left is None else min(left, self.fallback_s))
                try:
                    data = self._sock.recv(4096)
                except TimeoutError:
                    continue
                except OSError:
                    data = b""
                if data:
                    return True
                self._lost()
                return True  # the collector went away: whatever it did last is worth a look
            time.sleep(self.fallback_s if left is None else min(left, self.fallback_s))
            if self._subscribe() or self._fallback_changed():
                return True
        return False

    # -- asyncio ---------------------------------------------------------------------------------------------

    async def changes(self) -> AsyncIterator[None]:
        """The asyncio form: `async for _ in feed.changes(): redraw()`. Never blocks the event loop."""
        import asyncio  # only an asyncio front end gets here: the collector and the commands never load it

        loop = asyncio.get_running_loop()
        self._start()
        while not self.stop.is_set():
            if self._sock is not None:
                self._sock.setblocking(False)
                try:
                    data = await loop.sock_recv(self._sock, 4096)
                except OSError:
                    data = b""
                if not data:
                    self._lost()
                yield None
                continue
            await asyncio.sleep(self.fallback_s)
            if self._subscribe() or self._fallback_changed():
                yield None

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        if self._conn is not None:
            self._conn.close()
            self._conn = None
