"""The tokens a Qwen Code chat file counts, into the usage history: numbers and a model name only.

Each `assistant` record carries its request's `usageMetadata` (the prompt with its cached part, the reply, the
thoughts) and its `model`; the shared reader counts each record once. The context a session fills is its latest
request's prompt and reply. Its files do not say the model's window, and Qwen Code serves any model a provider
names: the window is not guessed from the model's name. Its `Stop` hook names it (`context_limit`), and the
collector keeps that beside the session's usage (`ledger.set_window`); without hooks it stays unknown.
"""

from __future__ import annotations

import sqlite3

from lunavect.chats import lines as chat_lines
from lunavect.chats.lines import ChatRead


def context_window(model: str | None) -> int | None:
    return None


def save_usage(conn: sqlite3.Connection, path: str, read: ChatRead | None, *, restarted: bool) -> None:
    """Record what a read added (a file read again from its start, or gone, first takes back what it added)."""
    chat_lines.save_usage(conn, path, read, context_window, restarted=restarted)
