"""Reading a transcript incrementally: only the bytes appended since the last read, complete lines only.

A cursor remembers how far the transcript was read (always the end of a complete line, so a line still being
written is read whole next time) with the marks `lunavect.files.tail` checks. A file replaced, cut or rewritten in
place is read again from its start; the caller is told so it can forget what it took from the old content.

Memory stays flat: the file is read in blocks, and a line longer than MAX_LINE_BYTES is skipped (reported
as such) without ever being held whole.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

from lunavect.files import tail
from lunavect.files.tail import TailFile, open_regular

BLOCK_BYTES = 1 << 20
# No record lunavect needs is this long; longer lines (huge pasted text, tool output) are skipped.
MAX_LINE_BYTES = 8 << 20


class Cursor(tail.Cursor, frozen=True):
    """Where a transcript's next read starts, and what the file looked like when it was read."""

    # The last read stopped at its budget: more complete lines wait even if the file did not change.
    partial: bool = False

    def unchanged(self, st: os.stat_result) -> bool:
        """True when nothing can have been appended or rewritten since the read, and it read all there was."""
        return super().unchanged(st) and not self.partial


class AppendedLines:
    """The complete lines appended to one transcript since `cursor`, as a context manager.

    Iterating yields `(offset, line)` for each complete line (without its newline), or `(offset, None)`
    for a line too long to keep. Reading stops at the first line boundary past `budget` bytes, so a huge
    file is taken in bounded steps. After iterating, `cursor()` is where the next read starts.
    """

    def __init__(self, path: Path | str, cursor: Cursor | None, budget: int = 64 << 20) -> None:
        self.path = path
        self.previous = cursor or Cursor()
        self.budget = budget
        self.restarted = False
        self._fd: int | None = None
        self._st: os.stat_result | None = None
        self.start = 0
        self.end = 0
        self.too_long = 0
        self.stopped = False

    def __enter__(self) -> AppendedLines:
        self._fd = open_regular(self.path)
        try:
            self._st = st = os.fstat(self._fd)
            self.start = self._resume_offset(st)
        except BaseException:
            os.close(self._fd)
            self._fd = None
            raise
        self.end = self.start
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _resume_offset(self, st: os.stat_result) -> int:
        previous = self.previous
        if previous.offset == 0:
            return 0
        assert self._fd is not None
        if TailFile(self._fd).resumes(st, previous):
            return previous.offset
        self.restarted = True
        return 0

    def __iter__(self) -> Iterator[tuple[int, bytes | None]]:
        assert self._fd is not None and self._st is not None
        limit = self._st.st_size
        line_start = self.start  # where the pending (incomplete) line begins
        pending = b""
        skipping = False  # inside a line too long to keep: look only for its end
        blocks = _Blocks(self._fd, self.start, limit)
        block, view = blocks.buffer, blocks.view
        for chunk_start, size in blocks:
            at = 0
            while True:
                newline = block.find(b"\n", at, size)
                if newline < 0:
                    break
                end = chunk_start + newline + 1
                if skipping:
                    skipping = False
                    self.too_long += 1
                    yield line_start, None
                else:
                    line = pending + view[at:newline] if pending else bytes(view[at:newline])
                    pending = b""
                    yield line_start, line
                self.end = line_start = end
                at = newline + 1
                if self.end - self.start >= self.budget:
                    self.stopped = chunk_start + size < limit or at < size
                    return
            if not skipping:
                pending, skipping = _held(pending, view[at:size])

    def matching(self, pattern: re.Pattern[bytes]) -> Iterator[list[tuple[int, bytes | None]]]:
        """The lines iterating yields in which `pattern` is found, and every line too long to keep (as None), a
        block's worth at a time, with the same counts, budget and cursor as iterating once the last list is
        taken. `pattern` must not match a newline.

        The pattern is searched for in the whole block, not line by line, and only a line it is found in is cut
        out: a whole read's lines that cannot matter (most of a transcript) then cost the search's scan over
        their bytes and nothing in Python, and a line that matters is scanned only up to its first match."""
        assert self._fd is not None and self._st is not None
        limit, budget_end = self._st.st_size, self.start + self.budget
        search = pattern.search
        line_start = self.start
        pending = b""
        skipping = False
        blocks = _Blocks(self._fd, self.start, limit)
        block, view = blocks.buffer, blocks.view
        find, rfind = block.find, block.rfind
        for chunk_start, size in blocks:
            found: list[tuple[int, bytes | None]] = []
            at = 0
            if pending or skipping:  # the line the last block ended in ends in this one, or later
                newline = find(b"\n", 0, size)
                if newline < 0:
                    pending, skipping = (b"", True) if skipping else _held(pending, view[:size])
                    yield found
                    continue
                if skipping:
                    self.too_long += 1
                    found.append((line_start, None))
                else:
                    line = pending + view[:newline]
                    if search(line) is not None:
                        found.append((line_start, line))
                pending, skipping = b"", False
                at = newline + 1
                line_start = chunk_start + at
            # The block's complete lines from `at`, up to the first that ends at or past the budget (at least
            # one line is read, whatever the budget).
            done = budget_end <= line_start > self.start
            last = rfind(b"\n", 0, size)
            if not done and last >= at:
                stop = find(b"\n", max(at, budget_end - chunk_start - 1), last + 1)
                end = stop if stop >= 0 else last
                place = at
                while (match := search(block, place, end)) is not None:
                    begin = rfind(b"\n", place, match.start()) + 1 or place
                    newline = find(b"\n", match.end(), end + 1)
                    found.append((chunk_start + begin, bytes(view[begin:newline])))
                    place = newline + 1
                at = end + 1
                line_start = chunk_start + at
            self.end = line_start
            if budget_end <= line_start > self.start:
                self.stopped = chunk_start + size < limit or at < size
                yield found
                return
            pending, skipping = _held(pending, view[at:size])
            yield found

    def cursor(self) -> Cursor:
        """Where the next read starts: the end of the last complete line read, with its marks."""
        assert self._fd is not None and self._st is not None
        st, end = self._st, self.end
        head, mark = TailFile(self._fd).marks(end)
        return Cursor(
            dev=st.st_dev,
            ino=st.st_ino,
            offset=end,
            head=head,
            mark=mark,
            size=st.st_size,
            mtime_ns=st.st_mtime_ns,
            partial=self.stopped,
        )


class _Blocks:
    """The file's bytes from `pos` to `limit` a block at a time, read into one buffer: iterating yields each
    block's offset and size, its bytes being `buffer[:size]` until the next block is read. It ends early where
    the file shrank under the read: the next read notices.

    One buffer for every block, because a fresh bytes object for each made the kernel hand over fresh pages for
    most blocks of a whole read: their page faults cost a sixth of its CPU."""

    def __init__(self, fd: int, pos: int, limit: int) -> None:
        self.fd, self.pos, self.limit = fd, pos, limit
        self.buffer = bytearray(max(0, min(BLOCK_BYTES, limit - pos)))
        self.view = memoryview(self.buffer)

    def __iter__(self) -> Iterator[tuple[int, int]]:
        fd, pos, limit, view = self.fd, self.pos, self.limit, self.view
        while pos < limit:
            size = _read_into(fd, view[: min(len(view), limit - pos)], pos)
            if not size:
                return
            yield pos, size
            pos += size


def _read_into(fd: int, into: memoryview, pos: int) -> int:
    """os.pread into a buffer; a system without preadv (macOS before 11) seeks and reads."""
    if _preadv is not None:
        return _preadv(fd, [into], pos)
    os.lseek(fd, pos, os.SEEK_SET)
    return os.readv(fd, [into])


_preadv = getattr(os, "preadv", None)


def _held(pending: bytes, rest: memoryview) -> tuple[bytes, bool]:
    """The incomplete line a block ends in, kept for the next block; once longer than any line kept it is
    dropped, and only its end is looked for (the second answer: skipping)."""
    pending += rest
    return (b"", True) if len(pending) > MAX_LINE_BYTES else (pending, False)
