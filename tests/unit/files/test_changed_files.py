"""What a folder's change watch tells, and that on Linux it sleeps until a change instead of stepping.

Real files, a real kernel watch: a transcript appended, a project folder made with a file already in it, a
file deleted, the folder itself removed and made again, and the watch thread's own context switches counted
while nothing changes (watchfiles' 100 ms step made about ten a second; a blocking read makes one per
STOP_CHECK_S)."""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from pathlib import Path

import pytest

from lunavect.files import changed as changed_files
from lunavect.files.changed import ChangedFiles

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")


def _armed(watch: ChangedFiles, timeout: float = 10.0) -> None:
    """Take until the watch runs and has answered its first None (a change made while it started may be
    missing): from then on every change is told."""
    deadline = time.monotonic() + timeout
    nones = 0
    while time.monotonic() < deadline:
        if watch.take() is None:
            nones += 1
        elif nones:
            return
        time.sleep(0.02)
    raise AssertionError("the watch never ran")


def _told(watch: ChangedFiles, wanted: set[str], timeout: float = 5.0) -> set[str]:
    got: set[str] = set()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got |= watch.take() or set()
        if wanted <= got:
            return got
        time.sleep(0.02)
    raise AssertionError(f"not told {wanted - got}; told {got}")


def test_appends_new_folders_and_deletions_are_told(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    (root / "old").mkdir(parents=True)
    transcript = root / "old" / "a.jsonl"
    transcript.write_text("{}\n")
    woken = threading.Event()
    watch = ChangedFiles(root)
    watch.listen(woken.set)
    try:
        _armed(watch)
        with transcript.open("a") as f:
            f.write("{}\n")
        assert woken.wait(5)  # the thread read it first (no take came between): a collector at rest wakes
        _told(watch, {str(transcript)})
        # A folder made with a file written in it at once: the file may come before the folder's own watch.
        fresh = root / "new" / "deeper"
        fresh.mkdir(parents=True)
        (fresh / "b.jsonl").write_text("{}\n")
        _told(watch, {str(root / "new"), str(fresh / "b.jsonl")})
        (fresh / "c.jsonl").write_text("{}\n")  # and one after its watch is set
        _told(watch, {str(fresh / "c.jsonl")})
        transcript.unlink()
        _told(watch, {str(transcript)})
    finally:
        watch.close()


@linux_only
def test_a_folder_removed_and_made_again_is_watched_again(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    root.mkdir()
    watch = ChangedFiles(root)
    try:
        _armed(watch)
        shutil.rmtree(root)
        deadline = time.monotonic() + 5
        while watch.take() is not None:  # the owner looks its own way while the folder is gone
            assert time.monotonic() < deadline, "the watch still answers for a folder that is gone"
            time.sleep(0.02)
        root.mkdir()
        _armed(watch)
        (root / "again.jsonl").write_text("{}\n")
        _told(watch, {str(root / "again.jsonl")})
    finally:
        watch.close()


def _switches(thread: threading.Thread) -> int:
    """The thread's context switches so far: every wake of a sleeping thread is one."""
    status = Path(f"/proc/self/task/{thread.native_id}/status").read_text()
    return sum(int(line.split()[1]) for line in status.splitlines() if line.split(":")[0].endswith("ctxt_switches"))


@linux_only
def test_a_watch_at_rest_sleeps_instead_of_stepping(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    (root / "p").mkdir(parents=True)
    watch = ChangedFiles(root)
    try:
        _armed(watch)
        thread = watch._thread
        assert thread is not None and thread.native_id is not None
        before = _switches(thread)
        time.sleep(3.0)
        woke = _switches(thread) - before
        # Stepping every 100 ms would be about 30; sleeping until a change, at most two stop checks.
        assert woke <= 3 * 1.0 / changed_files.STOP_CHECK_S + 2, woke
    finally:
        watch.close()


@linux_only
def test_a_take_is_told_every_change_made_before_it(tmp_path: Path) -> None:
    """The kernel queues a change within the write: a take right after a write is told it, whether or not
    the watch's thread has read it yet, so a collector's tick never misses a file made just before it."""
    root = tmp_path / "projects"
    (root / "p").mkdir(parents=True)
    watch = ChangedFiles(root)
    try:
        _armed(watch)
        for n in range(50):
            path = root / "p" / f"{n}.jsonl"
            path.write_text("{}\n")
            assert str(path) in (watch.take() or set())
        shutil.rmtree(root)
        assert watch.take() is None  # the folder went: its watch ended, and the owner looks its own way
    finally:
        watch.close()


@linux_only
def test_a_watch_the_kernel_refuses_for_a_new_folder_ends_and_the_owner_looks_its_own_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No inotify watch left for a folder made later: the watch cannot follow it, so it stops, and `take`
    answers None from then on (the source stats what it used to), whichever thread read that folder's
    creation; it never raises into the source's poll."""
    import errno

    from lunavect.files import inotify

    root = tmp_path / "projects"
    root.mkdir()
    watch = ChangedFiles(root)
    try:
        _armed(watch)
        real = inotify.Inotify.add

        def refused(self: inotify.Inotify, path: str, mask: int = inotify.CHANGES) -> int:
            if path != str(root):
                raise OSError(errno.ENOSPC, "No space left on device (inotify watches)")
            return real(self, path, mask)

        monkeypatch.setattr(inotify.Inotify, "add", refused)
        (root / "new").mkdir()
        assert watch.take() is None
        assert watch.take() is None
    finally:
        watch.close()


def _deep_folders(top: Path, length: int = 4200) -> None:
    """Folders nested below `top` until their path is longer than PATH_MAX (4,096 bytes on Linux): made
    through descriptors, as no path names the deepest ones."""
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        made = len(str(top))
        while made <= length:
            os.mkdir("d" * 200, dir_fd=fd)
            deeper = os.open("d" * 200, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd, made = deeper, made + 201
    finally:
        os.close(fd)


@linux_only
def test_a_folder_deeper_than_path_max_is_skipped_and_the_watch_goes_on(tmp_path: Path) -> None:
    """issue 42, item 9: the kernel refuses a watch for a path longer than PATH_MAX (ENAMETOOLONG); that folder
    is skipped, as one gone meanwhile is, and the rest of the tree is still watched, before and after."""
    root = tmp_path / "projects"
    (root / "deep-before").mkdir(parents=True)
    _deep_folders(root / "deep-before")
    (root / "p").mkdir()
    watch = ChangedFiles(root)
    try:
        _armed(watch)
        assert watch._watch.tree is not None  # the kernel's watch runs, not watchfiles' fallback
        (root / "deep-after").mkdir()
        _deep_folders(root / "deep-after")
        _told(watch, {str(root / "deep-after")})
        transcript = root / "p" / "a.jsonl"
        transcript.write_text("{}\n")
        _told(watch, {str(transcript)})
        assert watch._watch.tree is not None and not watch._watch.failed
    finally:
        watch.close()
        shutil.rmtree(root)


@linux_only
def test_a_new_folder_made_too_deep_to_watch_is_told_and_skipped(tmp_path: Path) -> None:
    """The folder made is itself the one whose path is too long (not only a folder below it)."""
    from lunavect.files.inotify_tree import TreeWatch

    root = tmp_path / "projects"
    root.mkdir()
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    made = len(str(root))
    while made + 201 < 4095:  # the deepest folder a path can still name
        os.mkdir("d" * 200, dir_fd=fd)
        deeper = os.open("d" * 200, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd, made = deeper, made + 201
    tree = TreeWatch(str(root))
    try:
        os.mkdir("e" * 200, dir_fd=fd)  # its path is longer than PATH_MAX
        told = tree.read(5)
        assert any(path.endswith("e" * 200) for path in told)
        (root / "a.jsonl").write_text("{}\n")
        assert str(root / "a.jsonl") in tree.read(5)
    finally:
        os.close(fd)
        tree.close()
        shutil.rmtree(root)
