"""Qwen Code sessions from their own files: every session's chat file under `projects/<folder>/chats/`, read
incrementally, hooks or not (`lunavect.chats.source`, with Qwen Code's files and reader).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from lunavect.chats.source import TICK_BUDGET_BYTES, ChatSource
from lunavect.clients.qwen import layout
from lunavect.clients.qwen.chat_read import PROVIDER, ChatRead, Cursor, Summary, project_folder, read_chat
from lunavect.clients.qwen.usage import save_usage


class QwenSource(ChatSource):
    """The `Source` of Qwen Code sessions seen through their chat files."""

    name = "qwen-files"
    PROVIDER = PROVIDER

    def __init__(self, root: Path | None = None, budget: int = TICK_BUDGET_BYTES) -> None:
        super().__init__(root, budget)
        self._folders: dict[str, str | None] = {}

    def default_root(self) -> Path:
        return layout.projects_dir()

    def chat_files(self, root: Path) -> list[tuple[str, os.stat_result]]:
        return layout.chat_files(root)

    def is_chat_name(self, name: str) -> bool:
        return layout.is_chat_name(name)

    def read(self, path: str, stored: tuple[Cursor, Summary] | None, budget: int, now: float) -> ChatRead:
        return read_chat(path, stored, budget, project_folder(path, self._folders), now)

    def save_usage(self, conn: sqlite3.Connection, path: str, read: ChatRead | None, *, restarted: bool) -> None:
        save_usage(conn, path, read, restarted=restarted)
