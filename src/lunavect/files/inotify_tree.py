"""A folder and every folder below it watched through one inotify instance, read in a blocking wait.

watchfiles' recursive watch looks for changes at every step of its loop: with the 100 ms step a transcript
needs, each of the collector's folder watches wakes ten times a second for as long as the collector runs, the
larger part of what a collector at rest costs. The kernel tells the same changes to a reader that sleeps until
they come. Folders made later are added as they appear, and what was written in them before their watch was
set is told as changed (the watch is set before the folder is listed, so nothing falls between).
"""

from __future__ import annotations

import errno
import os

from lunavect.files import inotify

_FOLDER_MASK = inotify.CHANGES | inotify.IN_ONLYDIR | inotify.IN_DONT_FOLLOW
# A folder below the root the kernel will not watch, which is skipped: gone again, not ours to read, or deeper
# than a path can name (ENAMETOOLONG past PATH_MAX: re-raised, it ended the whole tree's watch for good).
_UNWATCHABLE = (errno.ENOENT, errno.ENOTDIR, errno.EACCES, errno.ENAMETOOLONG, errno.ELOOP)


class RootGone(Exception):
    """The watched folder itself was deleted or moved away: its watch ended."""


class TreeWatch:
    """The paths changed under `root`, folders included, read with `read`."""

    def __init__(self, root: str) -> None:
        self.root = root
        self._inotify = inotify.Inotify()
        self._folders: dict[int, str] = {}
        # The kernel's queue overflowed since the last `overflowed()`: some changes were lost.
        self._overflowed = False
        try:
            self._add(root, None)
        except BaseException:
            self.close()
            raise

    def _add(self, top: str, found: set[str] | None) -> None:
        """Watch `top` and the folders below it; with `found`, every path there is told as changed (it was
        made before its watch). A folder below the root that cannot be watched (`_UNWATCHABLE`: a new one
        among them, made too deep or gone again) is skipped. OSError when the kernel refuses a watch (none
        left), or the root's own: the caller gives up."""
        pending = [top]
        while pending:
            folder = pending.pop()
            try:
                wd = self._inotify.add(folder, _FOLDER_MASK)
            except OSError as exc:
                if folder != self.root and exc.errno in _UNWATCHABLE:
                    continue  # gone again, not ours to read, or too deep to name: nothing there to follow
                raise
            self._folders[wd] = folder
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
                if found is not None:
                    found.add(entry.path)

    def wait(self, timeout_s: float) -> bool:
        """Sleep until a change is queued or `timeout_s` passed, reading nothing; whether one is queued."""
        return self._inotify.wait(timeout_s)

    def read(self, timeout_s: float) -> set[str]:
        """The paths changed, waiting up to `timeout_s` for the first; RootGone once the root's watch ended."""
        changed: set[str] = set()
        for wd, mask, name in self._inotify.read(timeout_s):
            if mask & inotify.IN_Q_OVERFLOW:
                self._overflowed = True
                continue
            folder = self._folders.get(wd)
            if folder is None:
                continue
            if folder == self.root and mask & (inotify.IN_IGNORED | inotify.IN_DELETE_SELF | inotify.IN_MOVE_SELF):
                raise RootGone(folder)
            if mask & inotify.IN_IGNORED:
                del self._folders[wd]
                continue
            path = os.path.join(folder, name) if name else folder
            changed.add(path)
            if name and mask & inotify.IN_ISDIR and mask & (inotify.IN_CREATE | inotify.IN_MOVED_TO):
                self._add(path, changed)
        return changed

    def overflowed(self) -> bool:
        """Whether changes were lost since the last call (the reader then looks its own way once)."""
        lost, self._overflowed = self._overflowed, False
        return lost

    def close(self) -> None:
        self._inotify.close()
