"""A bounded window of a conversation: its latest messages (or those before a place), read backwards from
the file's end in blocks, so the cost is what the window holds, never what the file holds.

A window holds at most `messages` messages and reads at most `max_bytes` of the file (one message at least);
it ends at the last complete line (a record still being written is read whole next time). Each message has
its mark; given the marks a viewer holds (`known`, place to mark), the window lists only what changed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import msgspec

from lunavect.conversation.assemble import Assembly
from lunavect.conversation.message import Message
from lunavect.conversation.parts import Attach, Part, place_key
from lunavect.conversation.source import Source
from lunavect.core import bounded_json
from lunavect.tail import TailFile, open_regular

BLOCK_BYTES = 256 * 1024
DEFAULT_MESSAGES = 50
DEFAULT_BYTES = 64 * 1024 * 1024
# A longer line (a huge tool result, an image, a compacted history) is skipped before it is decoded, and said
# to be: gathering and decoding one of 60 MB for a window that shows its first lines cost seconds and hundreds
# of megabytes, and a window's memory is what it shows.
MAX_LINE_BYTES = 8 * 1024 * 1024


@dataclass
class Window:
    messages: list[Message]
    # The place of the first message: an older window is read before it. None when the window is empty.
    start: str | None
    # Where the next read of appended records begins (the end of the last complete line).
    end: int
    # Whether the file holds records before this window.
    older: bool
    dev: int = 0
    ino: int = 0
    head: str = ""
    mark: str = ""
    # Against the marks a viewer holds: the first message that differs, the messages to redraw, the places gone.
    marks_from: int = 0
    changed: list[Message] = field(default_factory=list)
    gone: list[str] = field(default_factory=list)
    bytes_read: int = 0
    # Lines of this window's bytes skipped unread (too long, not JSON, nested too deep): said, never raised.
    skipped: int = 0

    @property
    def offset(self) -> int:  # lunavect.tail.Marked
        return self.end


class Unreadable(Exception):
    """The conversation file cannot be read (gone, not permitted)."""


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


def parts_of(source: Source, line: bytes | None, offset: int) -> list[Part] | None:
    """What one line shows; None for a line skipped unread: longer than MAX_LINE_BYTES (None already), not
    JSON, or nested deeper than bounded_json allows. An empty line shows nothing and is no skip."""
    if line is None:
        return None
    if not line.strip():
        return []
    try:
        record = bounded_json.decode_any(line)
    except msgspec.DecodeError:
        return None  # a damaged or foreign line shows nothing, as the client skips it
    return source.parse(record, offset)


def shows(part: Part) -> int:
    """How many messages a part adds at most (a result may join its call; an echo may be dropped)."""
    return 0 if isinstance(part, Attach) else 1


def compare(messages: list[Message], known: Mapping[str, str] | None) -> tuple[int, list[Message], list[str]]:
    """Against the marks a viewer holds: the index of the first message to redraw, those messages, and the
    places the viewer holds that this window no longer shows. Without `known`, everything is listed."""
    if not known:
        return 0, list(messages), []
    changed = [m for m in messages if known.get(m.place) != m.mark]
    first = next((i for i, m in enumerate(messages) if known.get(m.place) != m.mark), len(messages))
    shown = {m.place for m in messages}
    return first, changed, [p for p in known if p not in shown]


def assemble_window(
    collected: list[tuple[int, list[Part]]],
    *,
    messages: int,
    older: bool,
    end: int,
    st: os.stat_result,
    marks: tuple[str, str],
    known: Mapping[str, str] | None,
    bytes_read: int,
    skipped: int = 0,
) -> tuple[Window, Assembly]:
    """The window of the records read (newest first), in file order: results joined, marks listed."""
    assembly = Assembly()
    for _offset, found in reversed(collected):
        assembly.add(found)
    trimmed = len(assembly.messages) > messages
    assembly.trim(messages)
    shown = assembly.messages
    first_changed, changed, gone = compare(shown, known)
    assembly.changed = []
    window = Window(
        messages=shown,
        start=shown[0].place if shown else None,
        end=end,
        older=older or trimmed,
        dev=st.st_dev,
        ino=st.st_ino,
        head=marks[0],
        mark=marks[1],
        marks_from=first_changed,
        changed=changed,
        gone=gone,
        bytes_read=bytes_read,
        skipped=skipped,
    )
    return window, assembly


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
    if source.compressed:
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
