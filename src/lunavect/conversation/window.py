"""A bounded window of a conversation: its latest messages (or those before a place), read backwards from
the file's end in blocks, so the cost is what the window holds, never what the file holds.

A window holds at most `messages` messages and reads at most `max_bytes` of the file (one message at least);
it ends at the last complete line (a record still being written is read whole next time). Each message has
its mark; given the marks a viewer holds (`known`, place to mark), the window lists only what changed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping

from lunavect.conversation.assemble import Assembly
from lunavect.conversation.parts import Part, place_key
from lunavect.conversation.source import Source
from lunavect.conversation.window_parts import MAX_LINE_BYTES, Unreadable, Window, assemble_window, parts_of, shows
from lunavect.files.tail import TailFile, open_regular

BLOCK_BYTES = 256 * 1024
DEFAULT_MESSAGES = 50
DEFAULT_BYTES = 64 * 1024 * 1024


def complete_end(tf: TailFile, size: int) -> int:
    """The end of the file's last complete line, searched backwards a block at a time."""
    end = size
    while end > 0:
        start = max(0, end - BLOCK_BYTES)
        data = tf.read(end - start, start)
        if data is None:
            return 0
        newline = data.rfind(b"\n")
        if newline >= 0:
            return start + newline + 1
        end = start
    return 0


def lines_backward(tf: TailFile, end: int) -> Iterator[tuple[int, bytes | None]]:
    """Complete lines before `end`, newest first, with their offsets. A line longer than MAX_LINE_BYTES comes
    as None: its blocks are searched for the newline before it and let go, never gathered whole."""
    # The line being gathered, newest piece first (None until a newline ends one), and its length so far.
    pos, size = end, 0
    pieces: list[bytes] | None = None
    while pos > 0:
        start = max(0, pos - BLOCK_BYTES)
        block = tf.read(pos - start, start)
        if block is None:
            return
        cut = len(block)
        while (newline := block.rfind(b"\n", 0, cut)) >= 0:
            if pieces is not None:
                yield start + newline + 1, _whole(block[newline + 1 : cut], pieces, size)
            pieces, size = [], 0
            cut = newline
        if pieces is not None:
            size += cut
            if size <= MAX_LINE_BYTES:
                pieces.append(block[:cut])
            else:
                pieces.clear()
        pos = start
    if pieces is not None:
        yield 0, _whole(b"", pieces, size)


def _whole(first: bytes, rest: list[bytes], size: int) -> bytes | None:
    """A line from its first piece and the pieces after it (newest first); None when it is too long."""
    if len(first) + size > MAX_LINE_BYTES:
        return None
    return first + b"".join(reversed(rest)) if rest else first


def line_at(tf: TailFile, offset: int) -> bytes | None:
    """The complete line that starts at `offset` (without its newline), b"" when none ends, None when it is
    longer than MAX_LINE_BYTES."""
    pieces, at, size = [], offset, 0
    while True:
        chunk = os.pread(tf.fd, BLOCK_BYTES, at)
        tf.bytes_read += len(chunk)
        if not chunk:
            return b""
        newline = chunk.find(b"\n")
        if newline >= 0:
            pieces.append(chunk[:newline])
            return b"".join(pieces) if size + newline <= MAX_LINE_BYTES else None
        size += len(chunk)
        if size > MAX_LINE_BYTES:
            return None
        pieces.append(chunk)
        at += len(chunk)


def read_window(
    source: Source,
    *,
    before: str | None = None,
    messages: int = DEFAULT_MESSAGES,
    max_bytes: int = DEFAULT_BYTES,
    known: Mapping[str, str] | None = None,
) -> Window:
    """The latest `messages` messages of the conversation, or those before the place `before`."""
    return read_assembled(source, before=before, messages=messages, max_bytes=max_bytes, known=known)[0]


def read_assembled(
    source: Source,
    *,
    before: str | None = None,
    messages: int = DEFAULT_MESSAGES,
    max_bytes: int = DEFAULT_BYTES,
    known: Mapping[str, str] | None = None,
) -> tuple[Window, Assembly]:
    """The window, and the assembly that made it (what a follow goes on from: the calls awaiting results)."""
    if source.streamed:
        from lunavect.conversation.compressed import read_compressed

        return read_compressed(source, before=before, messages=messages, known=known)
    try:
        fd = open_regular(source.path)
    except OSError as exc:
        raise Unreadable(f"cannot read {source.path}: {exc.strerror or exc}") from None
    try:
        tf = TailFile(fd)
        st = os.fstat(fd)
        end = complete_end(tf, st.st_size)
        collected: list[tuple[int, list[Part]]] = []
        count, limit, skipped = 0, end, 0
        if before is not None:
            offset, index = place_key(before)
            limit = min(offset, end)
            if index > 0 and offset < end:
                parts = parts_of(source, line_at(tf, offset), offset)
                skipped += parts is None
                first = [p for p in parts or () if place_key(p.place)[1] < index]
                collected.append((offset, first))
                count += sum(shows(p) for p in first)
        earliest = limit
        if count < messages:
            for offset, line in lines_backward(tf, limit):
                earliest = offset
                found = parts_of(source, line, offset)
                if found is None:
                    skipped += 1
                elif found:
                    collected.append((offset, found))
                    count += sum(shows(p) for p in found)
                if count >= messages or (count and end - offset > max_bytes):
                    break
        head, mark = tf.marks(end)
        return assemble_window(
            collected, messages=messages, older=earliest > 0, end=end, st=st, marks=(head, mark), known=known,
            bytes_read=tf.bytes_read, skipped=skipped,
        )  # fmt: skip
    finally:
        os.close(fd)
