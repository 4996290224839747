"""The one collector per machine: the process that holds the lock and ticks the `Collector` until stopped.

Kept apart from the tick itself (collector/tick.py): this is the process's life (the lock, the store connection,
the watch that wakes it, the change feed, sync, the notifier), the tick is what each wake does.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from lunavect import faults, paths, store
from lunavect.collector.pace import TICK_S, Pace
from lunavect.collector.process import collector_pid, holds_lock_file, try_lock
from lunavect.collector.sync_link import SyncLink
from lunavect.collector.tick import Collector
from lunavect.collector.wake import ACTIVE_STEP_MS, Wake
from lunavect.evidence.sources import Source
from lunavect.listing import changes
from lunavect.notify.decide import Transition
from lunavect.tmux_status.publish import Publishing as TmuxPublishing

log = logging.getLogger("lunavect.collector")


def default_sources() -> list[Source]:
    """The file and catalog sources the collector polls on every tick, besides the hook spool: each client's,
    and the live terminal titles of the clients that draw their state there."""
    from lunavect import clients
    from lunavect.collector.pane_titles import PaneTitles
    from lunavect.core import clients as descriptors

    sources = [face.new_source() for face in clients.faces()]
    if any(client.rules.live_title for client in descriptors.every()):
        sources.append(PaneTitles())
    return sources


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

    While some session is live (`Collector.at_rest` is false) it ticks every `tick_s`, and at once for each
    hook event. At rest nothing it shows can change by the passage of time, so it sleeps until something
    wakes it: a hook event or a front end's poke (the spool), another process's commit (the WAL: passed on to
    the change feed's subscribers, then a tick, since it may be a setting), a source's files (transcripts,
    rollouts, the live catalog; at most one tick per `tick_s`), or the slow safety sweep (collector/pace.py).
    """
    fd = try_lock()
    if fd is None:
        log.info("another collector is running (pid %s)", collector_pid())
        return 0
    process = CollectorProcess(stop or threading.Event(), tick_s)
    # Made only once this process holds the lock: a second collector that exits at once starts nothing.
    process.watch(observer() if observer is not None else None)
    try:
        process.serve(fd)
    except FileNotFoundError:
        log.info("the spool folder disappeared; stopping")
    finally:
        process.close()
        os.close(fd)
    return 0


class CollectorProcess:
    """The collector's resources while it holds the lock (the store connection, the watch that wakes it, the
    change feed, sync, the notifier), and its loop: each wake carried out as the pace says."""

    def __init__(self, stop: threading.Event, tick_s: float) -> None:
        self.stop = stop
        self.conn = store.connect()
        faults.forget_loops(self.conn)  # what failed in the serving loops of the collector before is no longer news
        self.collector = Collector(self.conn, sources=default_sources())
        self.spool_dir = paths.ensure_private_dir(paths.spool_dir())
        self.data_dir = paths.data_dir()
        self.publisher = changes.Publisher()
        # The change feed's subscribers, then tmux's options (when the person's tmux.conf asks for them).
        self.notify = TmuxPublishing(store.connect, after=self.publisher.publish).notify
        self.collector.notify = self.notify
        self.external = changes.ExternalCommits(self.conn)
        self.link = SyncLink(paths.store_path())
        self.pace = Pace(tick_s)
        self.watcher: TransitionObserver | None = None
        self.wake: Wake | None = None

    def watch(self, watcher: TransitionObserver | None) -> None:
        """Feed the committed transitions to `watcher` (the notifier) rather than drop them."""
        if watcher is not None:
            self.watcher = self.collector.transitions = watcher

    def serve(self, fd: int) -> None:
        """Tick until stopped, or until the data folder or the lock file (`fd`) is gone."""
        self.wake = wake = Wake(self.data_dir, self.spool_dir, Path(str(paths.store_path()) + "-wal"), self.stop)
        for source in self.collector.sources:
            source.wake_with(wake.set)
        backlog = self.tick()
        self.pace.ticked()
        while not self.stop.is_set():
            # Other hosts' rows follow their heartbeats (sync): a collector with sync on does not rest.
            at_rest = self.collector.at_rest and self.link.config is None
            waiting = self.pace.wait(at_rest=at_rest, listened=self.publisher.listened)
            woken = wake.wait(waiting.seconds, waiting.step_ms)
            if woken.stopped:
                break
            if not self.data_dir.exists() or not holds_lock_file(fd):
                log.info("the data folder %s is gone; stopping", self.data_dir)
                break
            committed = self.pace.looks(woken) and self.external.changed()
            if committed:
                self.notify()
            act = self.pace.after(woken, committed)
            if act is not None:
                backlog = self.tick(beat=act.beat, poll=act.poll)
                if act.poll:
                    self.pace.ticked()
            backlog = self.catch_up(backlog)

    def tick(self, beat: bool = True, poll: bool = True) -> str | None:
        """One tick, between sync's look at its settings and its heartbeat; returns the sources' backlog."""
        self.link.refresh(self.conn)
        self.collector.host = self.link.host
        backlog = self.collector.tick(beat=beat) if poll else self.collector.tick(beat=beat, poll=False)
        self.link.after_tick(self.conn, self.collector.transitions)
        return backlog

    def catch_up(self, backlog: str | None) -> str | None:
        """Tick again while the sources have work left (`Batch.backlog`): at once while sessions are still
        unlisted, then with the pace's rest after each tick of whole reads."""
        while backlog is not None and not self.stop.is_set() and self.data_dir.exists():
            if self.external.changed():
                self.publisher.publish()
            started = self.pace.cpu()
            backlog = self.tick()
            if backlog == "reading":
                self.pause(self.pace.rest(started))
            self.pace.ticked()
        return backlog

    def pause(self, seconds: float) -> None:
        """The wait between whole reads: a hook event or another process's commit is taken at once (without
        reading), so a whole read never keeps them waiting longer than the tick it is in."""
        assert self.wake is not None
        deadline = self.pace.clock() + seconds
        while (left := deadline - self.pace.clock()) > 0 and not self.stop.is_set():
            woken = self.wake.wait(left, ACTIVE_STEP_MS)
            if woken.stopped:
                return
            committed = woken.committed and self.external.changed()
            if committed:
                self.notify()
            if woken.spooled or committed:
                self.tick(poll=False)

    def close(self) -> None:
        if self.wake is not None:
            self.wake.close()
        self.link.close()
        for source in self.collector.sources:
            source.close()
        if self.watcher is not None:
            self.watcher.close()
        self.publisher.close()
        self.conn.close()
