"""Which files under a folder changed, told by the operating system: inotify on Linux, read in a blocking wait
(`inotify_tree`), and elsewhere (FSEvents) or when inotify refuses, through watchfiles.

A source that stat'ed every file it knows at every tick would cost more with every session a person ever
ran. With change notifications it learns which files were written and stats those alone; the rest wait for a
slow safety sweep. The watch runs in a daemon thread that only collects paths and wakes the collector
(`listen`) when it is at rest; the source takes them at its next poll. Through inotify `take` first reads
what the kernel queued, so a poll is told every change made before it. When the folder does not exist yet or
the watch cannot start (no inotify watches left, an unsupported file system), `take` answers None and the
source falls back to what it stats without help.
"""

from __future__ import annotations

import logging
import os
import threading
import weakref
from collections.abc import Callable, Iterable
from pathlib import Path

from lunavect.files import inotify
from lunavect.files.inotify_tree import RootGone, TreeWatch

log = logging.getLogger("lunavect.changed_files")

# watchfiles looks for changes every this many milliseconds and groups what it finds: a growing file is
# reported once per step. Each step wakes the watch's thread (about 25 µs of CPU), so the step is what a
# watch through it costs at rest; a transcript's growth is seen within two steps (hook events have their own
# watch). Through inotify a change is told as it happens and nothing wakes meanwhile.
STEP_MS = 100
# The watch answers (empty) after this long without a change: its first answer says it runs.
READY_CHECK_MS = 5000
# Through inotify the watch sleeps until a change; it looks this often whether its owner closed it.
STOP_CHECK_S = 2.0


class _Watch:
    """What the watch thread shares with its owner; the thread holds this, never the owner, so an owner
    dropped without `close` is collected and its watch stops (each watch holds one of the few inotify
    instances a user may have)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.changed: set[str] = set()
        self.lock = threading.Lock()
        # The kernel's watch while it runs through inotify, read by its thread and by the owner's `drain`
        # under `reading` (the thread only sleeps without it).
        self.tree: TreeWatch | None = None
        self.reading = threading.Lock()
        # The root's own watch ended (the folder went), told by a drain: the thread stops and the owner looks
        # its own way until a new watch runs.
        self.gone = False
        self.stop = threading.Event()
        # Set once the watch runs (its first answer, even an empty one): only changes after that are told.
        self.ready = threading.Event()
        self.failed = False
        # Changes were lost (the kernel's queue overflowed): the owner looks its own way once.
        self.lost = False
        # Called (in the watch's thread) after changes were collected: the collector's wake.
        self.listener: Callable[[], None] | None = None

    def run(self) -> None:
        try:
            if inotify.available():
                try:
                    tree = TreeWatch(str(self.root))
                except OSError:
                    log.info("cannot watch %s through inotify; watching through watchfiles", self.root)
                else:
                    self._run_inotify(tree)
                    return
            self._run_watchfiles()
        except Exception:  # noqa: BLE001 - without a watch the source stats what it used to
            log.warning("cannot watch %s for changes", self.root, exc_info=True)
            self.failed = True

    def _run_inotify(self, tree: TreeWatch) -> None:
        """Sleeps until the kernel tells a change, looking at its stop event every STOP_CHECK_S."""
        self.tree = tree
        self.ready.set()
        try:
            while not self.stop.is_set() and not self.gone and not self.failed:
                if tree.wait(STOP_CHECK_S):
                    self.drain(wake=True)
        finally:
            with self.reading:
                self.tree = None
                tree.close()

    def drain(self, wake: bool = False) -> None:
        """Collect what the kernel has queued, without waiting. The owner drains before it takes: the kernel
        queues a change within the write that made it, so a poll sees every change made before it, not only
        those the thread had read by then. Once the folder went (its watch ended) `gone` says so; once the
        kernel refused a watch for a folder made later (none left), the watch cannot follow it and `failed`
        says so, whichever thread read that folder's creation."""
        with self.reading:
            tree = self.tree
            if tree is None or self.gone or self.failed:
                return
            try:
                changed = tree.read(0)
            except RootGone:
                self.gone = True  # the owner looks its own way, and watches it again once it is back
                return
            except OSError:
                log.warning("cannot watch %s for changes", self.root, exc_info=True)
                self.failed = True  # the owner stats what it used to, as when the watch never started
                return
            lost = tree.overflowed()
        self._collected(changed, lost=lost, wake=wake)

    def _run_watchfiles(self) -> None:
        import watchfiles

        for changes in watchfiles.watch(
            self.root,
            debounce=STEP_MS,
            step=STEP_MS,
            stop_event=self.stop,
            raise_interrupt=False,
            ignore_permission_denied=True,
            rust_timeout=READY_CHECK_MS,
            yield_on_timeout=True,
        ):
            self.ready.set()
            self._collected({path for _change, path in changes})

    def _collected(self, paths: set[str], lost: bool = False, wake: bool = True) -> None:
        if not paths and not lost:
            return
        with self.lock:
            self.changed.update(paths)
            self.lost = self.lost or lost
        if wake and self.listener is not None:
            self.listener()


class ChangedFiles:
    """The paths changed under `root` since the last `take`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._watch = _Watch(root)
        self._thread: threading.Thread | None = None
        self._armed = False
        weakref.finalize(self, self._watch.stop.set)

    def listen(self, listener: Callable[[], None]) -> None:
        """Call `listener` (from the watch's thread) whenever changes arrive: a collector at rest waits for it."""
        self._watch.listener = listener

    def take(self) -> set[str] | None:
        """The paths written, created or deleted since the last call; None while no watch runs (the caller
        then finds changes its own way)."""
        watch = self._watch
        dead = self._thread is not None and not self._thread.is_alive()
        if (self._thread is None or dead) and not watch.failed and not watch.stop.is_set() and self.root.is_dir():
            # First, or again once a folder that went away is back.
            watch.ready.clear()
            watch.gone = False
            self._armed = False
            self._thread = threading.Thread(target=watch.run, name=f"changes of {self.root.name}", daemon=True)
            self._thread.start()
        if self._thread is None or not self._thread.is_alive() or not watch.ready.is_set():
            return None
        watch.drain()
        if watch.gone or watch.failed:
            return None
        with watch.lock:
            changed, watch.changed = watch.changed, set()
            lost, watch.lost = watch.lost, False
        if not self._armed or lost:
            # A change made while the watch was starting may be missing (or the kernel dropped some): the
            # caller looks its own way once more, now that every later change is told.
            self._armed = True
            return None
        return changed

    def close(self) -> None:
        self._watch.stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)


class FollowedFolder:
    """The change watch of the folder a source reads: made when first asked (and made again when the source reads
    another folder), waking whom the collector names (`wake_with`, from the watch's thread), closed with the
    source."""

    def __init__(self) -> None:
        self._changes: ChangedFiles | None = None
        self._wake: Callable[[], None] | None = None

    def take(self, root: Path) -> set[str] | None:
        """The files under `root` that changed since the last take (`ChangedFiles.take`)."""
        if self._changes is None or self._changes.root != root:
            if self._changes is not None:
                self._changes.close()
            self._changes = ChangedFiles(root)
            if self._wake is not None:
                self._changes.listen(self._wake)
        return self._changes.take()

    def wake_with(self, wake: Callable[[], None]) -> None:
        self._wake = wake
        if self._changes is not None:
            self._changes.listen(wake)

    def close(self) -> None:
        if self._changes is not None:
            self._changes.close()


def stat_newest_first(paths: Iterable[str]) -> list[tuple[str, os.stat_result]]:
    """Each path that still names a file, with its stat, the most recently changed first: what a source reads
    between sweeps, besides what it was told."""
    found = []
    for path in paths:
        try:
            found.append((path, os.stat(path)))
        except OSError:
            continue
    found.sort(key=lambda item: -item[1].st_mtime)
    return found
