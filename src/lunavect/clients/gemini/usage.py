"""The tokens a Gemini CLI chat file counts, into the usage history: numbers and a model name only.

Each `gemini` message carries its request's `tokens` (`input` with its `cached` part, `output`, `thoughts`,
`tool`, `total`) and its `model`; the reader counts each message once (chat_read.py) and hands over what a read
added. The context a session fills is its latest request's prompt and reply; the window is the model's, as
Gemini CLI's own `tokenLimit` names it (its files do not say it).
"""

from __future__ import annotations

import sqlite3

from lunavect.chats import lines as chat_lines
from lunavect.chats.lines import ChatRead

# Gemini CLI 0.61.0's `tokenLimit`: every Gemini model it knows holds 1,048,576 tokens, Gemma 4 256,000.
WINDOW = 1_048_576
GEMMA_4_WINDOW = 256_000


def context_window(model: str | None) -> int | None:
    if model is None:
        return None
    if model.startswith("gemma-4"):
        return GEMMA_4_WINDOW
    return WINDOW if model.startswith(("gemini-", "gemma-")) else None


def save_usage(conn: sqlite3.Connection, path: str, read: ChatRead | None, *, restarted: bool) -> None:
    """Record what a read added (a file read again from its start, or gone, first takes back what it added)."""
    chat_lines.save_usage(conn, path, read, context_window, restarted=restarted)
