"""The one collector per machine: the process that holds the lock and ticks the `Collector` until stopped.

Kept apart from the tick itself (collector/tick.py): this is the process's life (the lock, the store connection,
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

from lunavect import faults, paths, store
from lunavect.collector.pace import catch_up
from lunavect.collector.process import collector_pid, holds_lock_file, try_lock
from lunavect.collector.sync_link import SyncLink
from lunavect.collector.tick import Collector
from lunavect.collector.wake import ACTIVE_STEP_MS, REST_STEP_MS, Wake
from lunavect.evidence.sources import Source
from lunavect.listing import changes
from lunavect.notify.decide import Transition
from lunavect.tmux_status.publish import Publishing as TmuxPublishing

log = logging.getLogger("lunavect.collector")

TICK_S = 1.0
# At rest, the slow safety sweep: a tick at least this often whatever wakes it (process ends the catalog does
# not show, a rollout the operating system did not tell of; `lunavect doctor` calls a collector silent for 30 s
# behind).
REST_S = 20.0
# However long it rests, it looks this often whether its data folder and lock file are still there (two stats, no
# tick): a data folder deleted takes the watch with it, so no notification would ever say so.
ALIVE_S = 1.0
# After a WAL change that showed no other process's commit yet, it is looked at again this long after.
RECHECK_S = (0.003, 0.02, 0.1)


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
    rollouts, the live catalog; at most one tick per `tick_s`), or the slow safety sweep every REST_S.
    """
    fd = try_lock()
    if fd is None:
        log.info("another collector is running (pid %s)", collector_pid())
        return 0
    stop = stop or threading.Event()
    conn = store.connect()
    faults.forget_loops(conn)  # what failed in the serving loops of the collector before is no longer news
    collector = Collector(conn, sources=default_sources())
    spool_dir = paths.ensure_private_dir(paths.spool_dir())
    data_dir = paths.data_dir()
    publisher = changes.Publisher()
    # The change feed's subscribers, then tmux's options (when the person's tmux.conf asks for them).
    notify = TmuxPublishing(store.connect, after=publisher.publish).notify
    collector.notify = notify
    external = changes.ExternalCommits(conn)
    link = SyncLink(paths.store_path())

    def tick(beat: bool = True, poll: bool = True) -> str | None:
        link.refresh(conn)
        collector.host = link.host
        backlog = collector.tick(beat=beat) if poll else collector.tick(beat=beat, poll=False)
        link.after_tick(conn, collector.transitions)
        return backlog

    def pause(seconds: float) -> None:
        """The wait between whole reads: a hook event or another process's commit is taken at once."""
        assert wake is not None
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0 and not stop.is_set():
            woken = wake.wait(left, ACTIVE_STEP_MS)
            if woken.stopped:
                return
            committed = woken.committed and external.changed()
            if committed:
                notify()
            if woken.spooled or committed:
                tick(poll=False)

    # Made only once this process holds the lock: a second collector that exits at once starts nothing.
    watcher = observer() if observer is not None else None
    if watcher is not None:
        collector.transitions = watcher
    wake: Wake | None = None
    try:
        wake = Wake(data_dir, spool_dir, Path(str(paths.store_path()) + "-wal"), stop)
        for source in collector.sources:
            source.wake_with(wake.set)
        backlog = tick()
        ticked = time.monotonic()
        files_waiting = False  # a source's files changed, and the tick for them waits for `tick_s` to pass
        # When to look again whether another process committed: its WAL write can come a moment before its
        # commit shows (the WAL index is updated after the last frame is written, and that update is no file
        # write a watch sees), so a WAL change that shows no commit yet is looked at again a few times.
        recheck: list[float] = []
        while not stop.is_set():
            # Other hosts' rows follow their heartbeats (sync): a collector with sync on does not rest.
            resting = collector.at_rest and link.config is None and not files_waiting
            since = time.monotonic() - ticked
            timeout = (REST_S if resting else tick_s) - since
            if recheck:
                timeout = min(timeout, recheck[0] - time.monotonic())
            # Fine steps while live, or while a front end is open (a panel shows another process's commit, or a
            # hook event, within a step or two); coarse steps at rest with nobody watching.
            step = REST_STEP_MS if resting and not publisher.listened() else ACTIVE_STEP_MS
            woken = wake.wait(min(max(timeout, 0.0), ALIVE_S), step)
            if recheck and time.monotonic() >= recheck[0]:
                recheck.pop(0)
                woken.committed = True
            elif woken.committed:
                clock = time.monotonic()
                recheck = [clock + delay for delay in RECHECK_S]
            if woken.stopped:
                break
            if not data_dir.exists() or not holds_lock_file(fd):
                log.info("the data folder %s is gone; stopping", data_dir)
                break
            committed = woken.committed and external.changed()
            if committed:
                recheck = []
                notify()
            files_waiting = files_waiting or woken.files
            due = time.monotonic() - ticked >= (REST_S if resting else tick_s)
            sources_due = files_waiting and time.monotonic() - ticked >= tick_s
            if committed or due or sources_due or woken.poked:
                # A timed tick at rest or while live commits its start only as a heartbeat (BEAT_EVERY_S).
                backlog = tick(beat=woken.spooled or committed)
                ticked = time.monotonic()
                files_waiting = False
            elif woken.spooled:
                # Hook events only: taken at once, without reading the sources (their whole tick comes at its
                # time): a turn's burst of tool events costs the collector its events, not a poll of each source.
                backlog = tick(poll=False)
            while backlog is not None and not stop.is_set() and data_dir.exists():
                backlog = catch_up(tick, external, publisher, stop, pause)
                ticked = time.monotonic()
    except FileNotFoundError:
        log.info("the spool folder disappeared; stopping")
    finally:
        if wake is not None:
            wake.close()
        link.close()
        for source in collector.sources:
            source.close()
        if watcher is not None:
            watcher.close()
        publisher.close()
        conn.close()
        os.close(fd)
    return 0
