"""What a window of a conversation is (`Window`), and how one is made of the parts its lines show, whichever
reader found them: window.py reads a plain file backwards, compressed.py a `.jsonl.zst` stream forwards.
Declared apart from both so that neither needs the other.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

import msgspec

from lunavect.conversation.assemble import Assembly
from lunavect.conversation.message import Message
from lunavect.conversation.parts import Attach, Part
from lunavect.conversation.source import Source
from lunavect.core import bounded_json

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
    def offset(self) -> int:  # lunavect.files.tail.Marked
        return self.end


class Unreadable(Exception):
    """The conversation file cannot be read (gone, not permitted)."""


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
