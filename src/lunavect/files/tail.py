"""Reading only what was appended to a growing file (a Claude transcript, a Codex rollout).

A reader keeps where its last read stopped (the end of a complete line), the file's identity (device and
inode) and short digests of the file's first bytes and of the bytes just before that offset. The next read
goes on from the offset only while all of them still hold: a file replaced under the same name, cut shorter
than the offset, or rewritten in place must be read again from its start. Checking costs two reads of
`MARK_BYTES`, so a refresh costs what was appended, never what the file holds.

Every client's reader uses this one module; what they do with the appended bytes (lines forwards, or a
backward search for a lifecycle boundary) stays theirs. A file of one JSON record a line read forwards
(`read_appended`) is read here to its last complete line.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from typing import Protocol

import msgspec

# How many bytes at the start, and just before the offset, are compared to notice a rewrite.
MARK_BYTES = 64


class Marked(Protocol):
    """Where a read stopped and what the file looked like there (a reader's stored cursor)."""

    @property
    def dev(self) -> int: ...
    @property
    def ino(self) -> int: ...
    @property
    def offset(self) -> int: ...
    @property
    def head(self) -> str: ...
    @property
    def mark(self) -> str: ...


class Cursor(msgspec.Struct, frozen=True):
    """Where a line reader's next read starts (`Marked`), and the size and modification time the file had when
    it was read (stored with the reader's summary of the file)."""

    dev: int = 0
    ino: int = 0
    offset: int = 0
    head: str = ""
    mark: str = ""
    size: int = 0
    mtime_ns: int = 0

    def unchanged(self, st: os.stat_result) -> bool:
        """True when nothing can have been appended or rewritten since the read."""
        return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns) == (self.dev, self.ino, self.size, self.mtime_ns)


class NotRegularFile(OSError):
    """A path that names a FIFO, a device, a socket or a folder where a client's file should be."""


def open_regular(path: str | os.PathLike[str]) -> int:
    """A read-only descriptor of `path`, only when it is a regular file.

    Every file another program writes (a transcript, a rollout, a catalog entry, a hook's `transcript_path`)
    is opened here. A FIFO named like one would block a plain open() forever (and the collector with it) until
    some writer appears: opening without blocking and checking what was opened refuses it at once, and a
    swap between a check and the open cannot slip one in.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile(f"not a regular file: {os.fspath(path)}")
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_small(path: str | os.PathLike[str], limit: int) -> bytes | None:
    """The whole of a small regular file a client writes (its metadata, a registry), or None when it cannot be
    read or is larger than `limit` bytes (no file that client writes is)."""
    try:
        fd = open_regular(path)
    except OSError:
        return None
    try:
        data = os.read(fd, limit + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data if len(data) <= limit else None


def first_line(path: str, limit: int = 64 * 1024) -> bytes | None:
    """The first line of a file (its first `limit` bytes at most), or None when it cannot be read: a chat file's
    first record names its session."""
    try:
        fd = open_regular(path)
    except OSError:
        return None
    try:
        return os.read(fd, limit).split(b"\n", 1)[0]
    except OSError:
        return None
    finally:
        os.close(fd)


def digest(data: bytes) -> str:
    import hashlib  # here: OpenSSL's load is a twentieth of a quick command's start, which never hashes

    return hashlib.blake2b(data, digest_size=8).hexdigest()


class TailFile:
    """One open file, read by exact positional reads that are counted (what a refresh costs)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.bytes_read = 0

    def read(self, length: int, offset: int) -> bytes | None:
        """Exactly `length` bytes at `offset`, or None when the file was cut short under the read."""
        data = b""
        while len(data) < length:
            chunk = os.pread(self.fd, length - len(data), offset + len(data))
            self.bytes_read += len(chunk)
            if not chunk:
                return None
            data += chunk
        return data

    def resumes(self, st: os.stat_result, at: Marked) -> bool:
        """True when reading may go on at `at.offset`: the same file, no shorter, with the same first bytes
        and the same bytes just before the offset."""
        if (st.st_dev, st.st_ino) != (at.dev, at.ino) or st.st_size < at.offset:
            return False
        if at.offset == 0:
            return True
        length = min(MARK_BYTES, at.offset)
        head = self.read(length, 0)
        mark = self.read(length, at.offset - length)
        return head is not None and mark is not None and digest(head) == at.head and digest(mark) == at.mark

    def marks(self, end: int) -> tuple[str, str]:
        """The digests (head, mark) to keep with a read that stopped at `end`."""
        length = min(MARK_BYTES, end)
        head = self.read(length, 0) or b""
        mark = self.read(length, end - length) or b""
        return digest(head), digest(mark)


# Lines are read a block at a time.
BLOCK_BYTES = 1 << 20


@dataclass
class Appended:
    """What `read_appended` found: the complete lines past the cursor, the cursor to keep, whether the file was
    read again from its start (replaced, cut, rewritten), how many lines too long to keep were passed over, and
    whether the budget stopped the read before the file's end."""

    lines: list[bytes]
    cursor: Cursor
    restarted: bool
    skipped: int
    partial: bool
    bytes_read: int


def read_appended(path: str, cursor: Cursor | None, budget: int, max_line: int) -> Appended:
    """The complete lines appended to a file of one JSON record a line since `cursor` (all of them when None, or
    when the file is no longer the one the cursor read), within about `budget` bytes (one line at least). A line
    longer than `max_line` (a huge tool result) is passed over unread, and counted."""
    fd = open_regular(path)
    try:
        st = os.fstat(fd)
        tf = TailFile(fd)
        restarted = cursor is None or not tf.resumes(st, cursor)
        start = 0 if restarted or cursor is None else cursor.offset
        lines, end, skipped, partial = _complete_lines(tf, start, st.st_size, budget, max_line)
        head, mark = tf.marks(end)
        # The size read to: a file with more past it (a line still being written, or the budget) is not unchanged.
        kept = Cursor(st.st_dev, st.st_ino, end, head, mark, end, st.st_mtime_ns)
        return Appended(lines, kept, restarted, skipped, partial, tf.bytes_read)
    finally:
        os.close(fd)


def _complete_lines(
    tf: TailFile, offset: int, end: int, budget: int, max_line: int
) -> tuple[list[bytes], int, int, bool]:
    """The complete lines from `offset` within about `budget` bytes (one line at least), where the last of
    them ends, how many lines too long to keep were passed over, and whether the budget stopped the read."""
    lines: list[bytes] = []
    pieces: list[bytes] = []
    size, skipped = 0, 0
    consumed = pos = offset
    while pos < end:
        block = tf.read(min(BLOCK_BYTES, end - pos), pos)
        if block is None:
            break  # cut shorter under the read: the next poll sees the file as it is then
        start = 0
        while (newline := block.find(b"\n", start)) >= 0:
            size += newline - start
            if size > max_line:
                skipped += 1
            else:
                lines.append(b"".join(pieces) + block[start:newline])
            pieces, size = [], 0
            start = newline + 1
            consumed = pos + start
            if consumed - offset >= budget and consumed < end:
                return lines, consumed, skipped, True
        rest = block[start:]
        size += len(rest)
        if size <= max_line:
            pieces.append(rest)
        else:
            pieces.clear()  # too long to keep: passed over once it ends
        pos += len(block)
    return lines, consumed, skipped, False
