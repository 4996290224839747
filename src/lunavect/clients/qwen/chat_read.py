"""Reading one Qwen Code chat file incrementally, through the shared reader of chat lines
(`lunavect.chats.lines`) with Qwen Code's own reader of a line (records.py); and the folder a chat file
belongs to, which every record of it names (`cwd`).
"""

from __future__ import annotations

import msgspec

from lunavect.chats.lines import ChatRead, Cursor, Reader, Summary
from lunavect.chats.lines import read_chat as read_with
from lunavect.clients.qwen.layout import folder
from lunavect.clients.qwen.records import read_line
from lunavect.core.clients import QWEN
from lunavect.files.tail import first_line

PROVIDER = QWEN.id
READER = Reader(PROVIDER, read_line)


class _Head(msgspec.Struct):
    cwd: object = None


_head = msgspec.json.Decoder(_Head)


def read_chat(path: str, stored: tuple[Cursor, Summary] | None, budget: int, cwd: str | None, now: float) -> ChatRead:
    """Read what was appended to the file since `stored` (or all of it), at most about `budget` bytes."""
    return read_with(path, stored, budget, cwd, now, READER)


def project_folder(path: str, cache: dict[str, str | None] | None = None) -> str | None:
    """The folder its first record names, cached per file (a session's folder never changes)."""
    if cache is not None and path in cache:
        return cache[path]
    head = first_line(path)
    try:
        found = folder(_head.decode(head).cwd) if head else None
    except msgspec.DecodeError:
        found = None
    if cache is not None and found is not None:
        cache[path] = found
    return found


__all__ = ["PROVIDER", "READER", "ChatRead", "Cursor", "Summary", "project_folder", "read_chat"]
