"""Waiting for a few folders to change through Linux's inotify, in a blocking read: nothing runs meanwhile.

watchfiles' watch looks for changes at every step of its own loop (a thread woken, the interpreter's lock
taken, its stop event asked), so a watch that shows a hook event within 10 ms costs a quarter of a percent of
a core whether anything happens or not. The collector's own wake (the hook spool, the store's WAL, a source's
request) needs no more than the folders it names, not recursively: the kernel's queue of their events is read
with `poll`, which sleeps until an event or the timeout. Linux only (ctypes on the C library's three inotify
calls); elsewhere, or when the kernel refuses (no instances left), `available` is False and the caller keeps
watchfiles.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
import os
import select
import struct
import sys

IN_MODIFY = 0x00000002
IN_ATTRIB = 0x00000004
IN_CLOSE_WRITE = 0x00000008
IN_MOVED_FROM = 0x00000040
IN_MOVED_TO = 0x00000080
IN_CREATE = 0x00000100
IN_DELETE = 0x00000200
IN_DELETE_SELF = 0x00000400
IN_MOVE_SELF = 0x00000800
IN_Q_OVERFLOW = 0x00004000  # the kernel's queue overflowed: anything may have changed
IN_IGNORED = 0x00008000  # the watch is gone (its folder was deleted)
IN_ONLYDIR = 0x01000000  # watch the path only if it is a folder
IN_DONT_FOLLOW = 0x02000000  # never through a symbolic link
IN_ISDIR = 0x40000000  # the event's name is a folder
# What a change of a file in a watched folder, or of the folder itself, sends.
CHANGES = (
    IN_MODIFY
    | IN_ATTRIB
    | IN_CLOSE_WRITE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_CREATE
    | IN_DELETE
    | IN_DELETE_SELF
    | IN_MOVE_SELF
)
_EVENT = struct.Struct("iIII")  # struct inotify_event: wd, mask, cookie, len (then the name, NUL-padded)
_READ_BYTES = 64 * 1024

Event = tuple[int, int, str]  # (watch descriptor, mask, name within the folder; "" for the folder itself)


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.inotify_init1.argtypes, libc.inotify_init1.restype = [ctypes.c_int], ctypes.c_int
        libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        libc.inotify_add_watch.restype = ctypes.c_int
    except (OSError, AttributeError):
        return None
    return libc


_LIBC = _libc()


class Inotify:
    """One inotify instance: folders added with `add`, their events read with `read`."""

    def __init__(self) -> None:
        if _LIBC is None:
            raise OSError("inotify is not available here")
        fd = _LIBC.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        self.fd = fd
        self._poll = select.poll()
        self._poll.register(fd, select.POLLIN)

    def add(self, path: str, mask: int = CHANGES) -> int:
        """Watch one folder (not its subfolders); its watch descriptor. OSError when it cannot be watched."""
        assert _LIBC is not None
        wd = _LIBC.inotify_add_watch(self.fd, os.fsencode(path), mask)
        if wd < 0:
            raise OSError(ctypes.get_errno(), "inotify_add_watch", path)
        return wd

    def wait(self, timeout_s: float) -> bool:
        """Sleep until an event is queued or `timeout_s` passed; whether one is queued.

        The poll counts whole milliseconds, rounded up: rounded down, the last millisecond of every wait was a
        poll that returned at once, asked again and again by a caller waiting for its deadline (the collector's
        loop spun through it about 800 times a wait)."""
        return bool(self._poll.poll(max(0, math.ceil(timeout_s * 1000))))

    def read(self, timeout_s: float) -> list[Event]:
        """The events queued, waiting up to `timeout_s` for the first; empty on the timeout. With no wait the
        poll is not asked (the descriptor does not block): another thread may be sleeping in it."""
        if timeout_s > 0 and not self.wait(timeout_s):
            return []
        try:
            data = os.read(self.fd, _READ_BYTES)
        except BlockingIOError:
            return []
        events: list[Event] = []
        at = 0
        while at + _EVENT.size <= len(data):
            wd, mask, _cookie, length = _EVENT.unpack_from(data, at)
            name = data[at + _EVENT.size : at + _EVENT.size + length].rstrip(b"\0")
            events.append((wd, mask, os.fsdecode(name)))
            at += _EVENT.size + length
        return events

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def available() -> bool:
    return _LIBC is not None
