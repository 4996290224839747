"""Which files under a folder changed, told by the operating system (inotify, FSEvents) through watchfiles.

A source that stat'ed every file it knows at every tick would cost more with every session a person ever
ran. With change notifications it learns which files were written and stats those alone; the rest wait for a
slow safety sweep. The watch runs in a daemon thread that only collects paths; the source takes them at its
next poll, and wakes the collector (`listen`) when it is at rest. When the folder does not exist yet or the watch cannot start (no inotify watches left, an
unsupported file system), `take` answers None and the source falls back to what it stats without help.
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger("lunavect.changed_files")

# watchfiles looks for changes every this many milliseconds and groups what it finds: a growing file is
# reported once per step. Each step wakes the watch's thread (about 25 µs of CPU), so the step is what a
# watch costs at rest; a transcript's growth is seen within two steps (hook events have their own watch).
STEP_MS = 100
# The watch answers (empty) after this long without a change: its first answer says it runs.
READY_CHECK_MS = 5000


class _Watch:
    """What the watch thread shares with its owner; the thread holds this, never the owner, so an owner
    dropped without `close` is collected and its watch stops (each watch holds one of the few inotify
    instances a user may have)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.changed: set[str] = set()
        self.lock = threading.Lock()
        self.stop = threading.Event()
        # Set once the watch runs (its first answer, even an empty one): only changes after that are told.
        self.ready = threading.Event()
        self.failed = False
        # Called (in the watch's thread) after changes were collected: the collector's wake.
        self.listener: Callable[[], None] | None = None

    def run(self) -> None:
        try:
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
                if not changes:
                    continue
                with self.lock:
                    self.changed.update(path for _change, path in changes)
                if self.listener is not None:
                    self.listener()
        except Exception:  # noqa: BLE001 - without a watch the source stats what it used to
            log.warning("cannot watch %s for changes", self.root, exc_info=True)
            self.failed = True


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
        if self._thread is None and not watch.failed and self.root.is_dir():
            self._thread = threading.Thread(target=watch.run, name=f"changes of {self.root.name}", daemon=True)
            self._thread.start()
        if self._thread is None or not self._thread.is_alive() or not watch.ready.is_set():
            return None
        with watch.lock:
            changed, watch.changed = watch.changed, set()
        if not self._armed:
            # A change made while the watch was starting may be missing: the caller looks its own way once
            # more, now that every later change is told.
            self._armed = True
            return None
        return changed

    def close(self) -> None:
        self._watch.stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
