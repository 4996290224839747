"""Reading one Gemini CLI chat file incrementally, through the shared reader of chat lines
(`lunavect.chats.lines`) with Gemini CLI's own reader of a line (records.py).
"""

from __future__ import annotations

from lunavect.chats.lines import ChatRead, Cursor, Reader, Summary, fold_lines
from lunavect.chats.lines import read_chat as read_with
from lunavect.clients.gemini.records import read_line
from lunavect.core.clients import GEMINI

PROVIDER = GEMINI.id
READER = Reader(PROVIDER, read_line)


def read_chat(path: str, stored: tuple[Cursor, Summary] | None, budget: int, cwd: str | None, now: float) -> ChatRead:
    """Read what was appended to the file since `stored` (or all of it), at most about `budget` bytes."""
    return read_with(path, stored, budget, cwd, now, READER)


__all__ = ["PROVIDER", "READER", "ChatRead", "Cursor", "Summary", "fold_lines", "read_chat"]
