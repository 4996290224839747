"""Gemini CLI sessions from their own files: every session's chat file, read incrementally, hooks or not
(`lunavect.chats.source`, with Gemini CLI's files and reader).

A sub-agent writes a folder of its own below `chats/`, which is never read as a session; a file whose metadata
says `kind: "subagent"` is reported as an internal agent. An older whole-file chat (`legacy.py`) is read from its
`.jsonl` once a resume rewrote it, else as history once it has been quiet a while.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from lunavect.chats.source import TICK_BUDGET_BYTES, ChatSource
from lunavect.clients.gemini import layout, legacy
from lunavect.clients.gemini.chat_read import PROVIDER, ChatRead, Cursor, Summary, read_chat
from lunavect.clients.gemini.usage import save_usage


class GeminiSource(ChatSource):
    """The `Source` of Gemini CLI sessions seen through their chat files."""

    name = "gemini-files"
    PROVIDER = PROVIDER

    def __init__(self, root: Path | None = None, budget: int = TICK_BUDGET_BYTES) -> None:
        super().__init__(root, budget)
        self._folders: dict[str, str | None] = {}

    def default_root(self) -> Path:
        return layout.tmp_dir()

    def chat_files(self, root: Path) -> list[tuple[str, os.stat_result]]:
        return layout.chat_files(root)

    def is_chat_name(self, name: str) -> bool:
        return layout.is_chat_name(name)

    def waits(self, path: str, st: os.stat_result, now: float) -> bool:
        # Read from its .jsonl; or still changing: history once it is quiet (a sweep looks again).
        return layout.is_legacy(path) and (legacy.replaced(path) or not legacy.quiet(st, now))

    def read(self, path: str, stored: tuple[Cursor, Summary] | None, budget: int, now: float) -> ChatRead:
        folder = layout.project_folder(path, self._folders)
        if layout.is_legacy(path):
            return legacy.read_legacy(path, folder, now)
        return read_chat(path, stored, budget, folder, now)

    def save_usage(self, conn: sqlite3.Connection, path: str, read: ChatRead | None, *, restarted: bool) -> None:
        save_usage(conn, path, read, restarted=restarted)
