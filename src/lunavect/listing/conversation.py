"""Where a session's conversation is read from, for the front ends: its client's face finds the file.

A peek and `lunavect show` read the conversation on demand from the client's own file (the collector never
keeps it); which file, and how its records read, only the client knows. This is the front ends' one way to it,
so the contract "Front ends never reach a client's package" names this module rather than every peek.
"""

from __future__ import annotations

import sqlite3

from lunavect import clients
from lunavect.conversation.source import Source


def find_source(provider: str, session_id: str, conn: sqlite3.Connection | None = None) -> Source | None:
    """The file a session's conversation is read from, or None when this machine holds none (or `session_id`
    is no id: the client's layout is searched by building a file name and a pattern from it)."""
    return clients.find_conversation(provider, session_id, conn)
