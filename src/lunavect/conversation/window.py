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
from lunavect.tail import TailFile

BLOCK_BYTES = 256 * 1024
DEFAULT_MESSAGES = 50
DEFAULT_BYTES = 64 * 1024 * 1024

_decode = msgspec.json.Decoder().decode


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


def lines_backward(tf: TailFile, end: int) -> Iterator[tuple[int, bytes]]:
    """Complete lines before `end` (a line boundary), newest first, with their offsets."""
    pos, carry = end, b""
    while pos > 0:
        start = max(0, pos - BLOCK_BYTES)
        block = tf.read(pos - start, start)
        if block is None:
            return
        data = block + carry
        cut = data.find(b"\n") if start > 0 else -1
        if start > 0 and cut < 0:  # a line longer than a block: keep gathering it
            carry, pos = data, start
            continue
        body, carry = data[cut + 1 :], data[: cut + 1]
        offsets, at = [], start + cut + 1
        for line in body.split(b"\n")[:-1]:
            offsets.append((at, line))
            at += len(line) + 1
        yield from reversed(offsets)
        pos = start


def line_at(tf: TailFile, offset: int) -> bytes:
    """The complete line that starts at `offset` (without its newline), or b"" when none ends."""
    pieces, at = [], offset
    while True:
        chunk = os.pread(tf.fd, BLOCK_BYTES, at)
        tf.bytes_read += len(chunk)
        if not chunk:
            return b""
        newline = chunk.find(b"\n")
        if newline >= 0:
            pieces.append(chunk[:newline])
            return b"".join(pieces)
        pieces.append(chunk)
        at += len(chunk)


def parts_of(source: Source, line: bytes, offset: int) -> list[Part]:
    try:
        record = _decode(line)
    except (msgspec.DecodeError, ValueError):
        return []  # a damaged or foreign line shows nothing, as the client skips it
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
        fd = os.open(source.path, os.O_RDONLY)
    except OSError as exc:
        raise Unreadable(f"cannot read {source.path}: {exc.strerror}") from None
    try:
        tf = TailFile(fd)
        st = os.fstat(fd)
        end = complete_end(tf, st.st_size)
        collected: list[tuple[int, list[Part]]] = []
        count, limit = 0, end
        if before is not None:
            offset, index = place_key(before)
            limit = min(offset, end)
            if index > 0 and offset < end:
                first = [p for p in parts_of(source, line_at(tf, offset), offset) if place_key(p.place)[1] < index]
                collected.append((offset, first))
                count += sum(shows(p) for p in first)
        earliest = limit
        if count < messages:
            for offset, line in lines_backward(tf, limit):
                earliest = offset
                found = parts_of(source, line, offset)
                if found:
                    collected.append((offset, found))
                    count += sum(shows(p) for p in found)
                if count >= messages or (count and end - offset > max_bytes):
                    break
        head, mark = tf.marks(end)
        return assemble_window(
            collected, messages=messages, older=earliest > 0, end=end, st=st, marks=(head, mark), known=known,
            bytes_read=tf.bytes_read,
        )  # fmt: skip
    finally:
        os.close(fd)
