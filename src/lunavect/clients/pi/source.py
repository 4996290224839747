"""Pi sessions from their own files: every session file, read incrementally, extension or not
(`lunavect.chats.source`, with Pi's files and reader, read.py).

Files gone since (a person deleted the session from `/resume`) have their cursors and usage forgotten at a sweep.
A file kept outside the sessions folder (`--session-dir`) is read once a hook record names it, as a running
session's.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from lunavect.chats.source import TICK_BUDGET_BYTES, FileSource
from lunavect.clients.pi import places
from lunavect.clients.pi.read import SessionRead, Summary, read_session
from lunavect.clients.pi.usage import save_usage
from lunavect.core.clients import PI
from lunavect.files.tail import Cursor


class PiSource(FileSource[SessionRead, Summary]):
    """The `Source` of Pi sessions seen through their session files."""

    name = "pi-files"
    PROVIDER = PI.id

    default_root = staticmethod(places.sessions_dir)
    session_files = staticmethod(places.session_files)
    is_session_file = staticmethod(places.is_session_file)
    # `--session-dir` keeps a running session's file outside the sessions folder: every session file is followed.
    follows = staticmethod(places.is_session_file)

    def __init__(self, root: Path | None = None, budget: int = TICK_BUDGET_BYTES) -> None:
        super().__init__(root, budget, Summary, "pi.sessions", "pi.sessions.skipped_lines")

    def beyond(self, present: set[str]) -> set[str]:
        return self._live() - present

    def read(self, path: str, stored: tuple[Cursor, Summary] | None, budget: int, now: float) -> SessionRead:
        return read_session(path, stored, budget, now)

    def save_usage(self, conn: sqlite3.Connection, path: str, read: SessionRead | None, *, restarted: bool) -> None:
        save_usage(conn, path, read, restarted=restarted)
