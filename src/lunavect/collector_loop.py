"""The one collector per machine: the process that holds the lock and ticks the `Collector` until stopped.

Kept apart from the tick itself (collector.py): this is the process's life (the lock, the store connection,
the watch that wakes it, the change feed, sync, the notifier), the tick is what each wake does.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from lunavect import changes, paths, store
from lunavect.collector import Collector
from lunavect.collector_pace import catch_up
from lunavect.collector_process import collector_pid, holds_lock_file, try_lock
from lunavect.notify.decide import Transition
from lunavect.sources import Source
from lunavect.sync.link import SyncLink
from lunavect.tmux_status.publish import Publishing as TmuxPublishing

log = logging.getLogger("lunavect.collector")

TICK_S = 1.0


def default_sources() -> list[Source]:
    """The file and catalog sources the collector polls on every tick, besides the hook spool."""
    from lunavect.claude.files_source import ClaudeFilesSource
    from lunavect.codex.source import CodexSource

    return [ClaudeFilesSource(), CodexSource()]


class TransitionObserver(Protocol):
    """Something fed the collector's committed transitions (the notifier), closed when the collector stops."""

    def __call__(self, moved: list[Transition]) -> None: ...

    def close(self) -> None: ...


def run(
    stop: threading.Event | None = None,
    tick_s: float = TICK_S,
    observer: Callable[[], TransitionObserver | None] | None = None,
) -> int:
    """Be the collector until stopped or the data folder disappears; returns an exit code.

    One watch wakes it: a change in the spool folder ticks now (else one tick a second), and a change of the
    store's WAL that it did not cause (another process committed: an arrangement, a setting) is passed on to
    the change feed's subscribers.
    """
    fd = try_lock()
    if fd is None:
        log.info("another collector is running (pid %s)", collector_pid())
        return 0
    stop = stop or threading.Event()
    conn = store.connect()
    collector = Collector(conn, sources=default_sources())
    spool_dir = paths.ensure_private_dir(paths.spool_dir())
    data_dir = paths.data_dir()
    wal = str(paths.store_path()) + "-wal"
    publisher = changes.Publisher()
    # The change feed's subscribers, then tmux's options (when the person's tmux.conf asks for them).
    notify = TmuxPublishing(store.connect, after=publisher.publish).notify
    collector.notify = notify
    external = changes.ExternalCommits(conn)
    link = SyncLink(paths.store_path())

    def tick() -> str | None:
        link.refresh(conn)
        collector.host = link.host
        backlog = collector.tick()
        link.after_tick(conn, collector.transitions)
        return backlog

    # Made only once this process holds the lock: a second collector that exits at once starts nothing.
    watcher = observer() if observer is not None else None
    if watcher is not None:
        collector.transitions = watcher
    try:
        import watchfiles

        backlog = tick()
        ticked = time.monotonic()
        for found in watchfiles.watch(
            data_dir,
            watch_filter=lambda _change, path: path == wal or Path(path).parent == spool_dir,
            debounce=10,
            step=10,
            rust_timeout=int(tick_s * 1000),
            yield_on_timeout=True,
            stop_event=stop,
            raise_interrupt=False,
        ):
            if not data_dir.exists() or not holds_lock_file(fd):
                log.info("the data folder %s is gone; stopping", data_dir)
                break
            if external.changed():
                notify()
            spooled = any(path != wal for _change, path in found)
            if spooled or not found or time.monotonic() - ticked >= tick_s:
                backlog = tick()
                ticked = time.monotonic()
            while backlog is not None and not stop.is_set() and data_dir.exists():
                backlog = catch_up(tick, external, publisher, stop)
                ticked = time.monotonic()
            if stop.is_set():
                break
    except FileNotFoundError:
        log.info("the spool folder disappeared; stopping")
    finally:
        link.close()
        for source in collector.sources:
            source.close()
        if watcher is not None:
            watcher.close()
        publisher.close()
        conn.close()
        os.close(fd)
    return 0
