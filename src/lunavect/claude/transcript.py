"""Reading a transcript incrementally: only the bytes appended since the last read, complete lines only.

A cursor remembers how far the transcript was read (always the end of a complete line, so a line still being
written is read whole next time) with the marks `lunavect.files.tail` checks. A file replaced, cut or rewritten in
place is read again from its start; the caller is told so it can forget what it took from the old content.

Memory stays flat: the file is read in blocks, and a line longer than MAX_LINE_BYTES is skipped (reported
as such) without ever being held whole.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

from lunavect.files import tail
from lunavect.files.tail import TailFile, open_regular

BLOCK_BYTES = 1 << 20
# No record lunavect needs is this long; longer lines (huge pasted text, tool output) are skipped.
MAX_LINE_BYTES = 8 << 20


class Cursor(tail.Cursor, frozen=True):
    """Where a transcript's next read starts, and what the file looked like when it was read."""

    lines: int = 0
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
        self.lines_read = 0
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
        fd, limit = self._fd, self._st.st_size
        line_start = self.start  # where the pending (incomplete) line begins
        pending = b""
        skipping = False  # inside a line too long to keep: look only for its end
        for chunk_start, chunk in _blocks(fd, self.start, limit):
            at = 0
            while True:
                newline = chunk.find(b"\n", at)
                if newline < 0:
                    break
                end = chunk_start + newline + 1
                if skipping:
                    skipping = False
                    self.too_long += 1
                    yield line_start, None
                else:
                    line = pending + chunk[at:newline] if pending else chunk[at:newline]
                    pending = b""
                    yield line_start, line
                self.lines_read += 1
                self.end = line_start = end
                at = newline + 1
                if self.end - self.start >= self.budget:
                    self.stopped = chunk_start + len(chunk) < limit or at < len(chunk)
                    return
            if not skipping:
                pending, skipping = _held(pending, chunk[at:])

    def matching(self, test: Callable[[bytes], object]) -> Iterator[list[tuple[int, bytes | None]]]:
        """The lines iterating yields that pass `test` (its answer not None), and every line too long to keep (as
        None), a block's worth at a time, with the same counts, budget and cursor as iterating once the last
        list is taken. A whole read's loop (claude/fold.py) then runs over each line in one place, never
        resuming a generator for a line the test drops: most of a transcript."""
        assert self._fd is not None and self._st is not None
        fd, limit, budget_end = self._fd, self._st.st_size, self.start + self.budget
        line_start = self.start
        pending = b""
        skipping = False
        lines_read = too_long = 0
        find = bytes.find
        for chunk_start, chunk in _blocks(fd, self.start, limit):
            found: list[tuple[int, bytes | None]] = []
            at = 0
            stopped = False
            while (newline := find(chunk, b"\n", at)) >= 0:
                if skipping:
                    skipping = False
                    too_long += 1
                    found.append((line_start, None))
                elif pending:
                    line = pending + chunk[at:newline]
                    pending = b""
                    if test(line) is not None:
                        found.append((line_start, line))
                elif test(line := chunk[at:newline]) is not None:
                    found.append((line_start, line))
                lines_read += 1
                line_start = chunk_start + newline + 1
                at = newline + 1
                if line_start >= budget_end:
                    stopped = True
                    self.stopped = chunk_start + len(chunk) < limit or at < len(chunk)
                    break
            if not stopped and not skipping:
                pending, skipping = _held(pending, chunk[at:])
            self.end, self.lines_read, self.too_long = (
                line_start,
                self.lines_read + lines_read,
                self.too_long + too_long,
            )
            lines_read = too_long = 0
            yield found
            if stopped:
                return

    def cursor(self) -> Cursor:
        """Where the next read starts: the end of the last complete line read, with its marks."""
        assert self._fd is not None and self._st is not None
        st, end = self._st, self.end
        head, mark = TailFile(self._fd).marks(end)
        lines = (0 if self.restarted else self.previous.lines) + self.lines_read
        return Cursor(
            dev=st.st_dev,
            ino=st.st_ino,
            offset=end,
            head=head,
            mark=mark,
            size=st.st_size,
            mtime_ns=st.st_mtime_ns,
            lines=lines,
            partial=self.stopped,
        )


def _blocks(fd: int, pos: int, limit: int) -> Iterator[tuple[int, bytes]]:
    """The file's bytes from `pos` to `limit` a block at a time, each with its offset. It ends early where the
    file shrank under the read: the next read notices."""
    while pos < limit:
        chunk = os.pread(fd, min(BLOCK_BYTES, limit - pos), pos)
        if not chunk:
            return
        yield pos, chunk
        pos += len(chunk)


def _held(pending: bytes, rest: bytes) -> tuple[bytes, bool]:
    """The incomplete line a block ends in, kept for the next block; once longer than any line kept it is
    dropped, and only its end is looked for (the second answer: skipping)."""
    pending += rest
    return (b"", True) if len(pending) > MAX_LINE_BYTES else (pending, False)
