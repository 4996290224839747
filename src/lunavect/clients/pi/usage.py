"""The tokens a Pi session file counts, into the usage history: numbers and a model name only.

Each assistant message carries its request's `usage` (`input`, `output`, `cacheRead`, `cacheWrite`, disjoint, as
Pi adds them into its `totalTokens`) and its model; the reader counts each once (read.py) and hands over what a
read added. The context a session fills is its latest request's prompt and reply; the window is the model's
`contextWindow` in the person's models.json, which lunavect does not read (none is shown).
"""

from __future__ import annotations

import sqlite3

from lunavect.clients.pi.read import SessionRead
from lunavect.core.clients import PI
from lunavect.core.model import session_key
from lunavect.usage import ledger


def save_usage(conn: sqlite3.Connection, path: str, read: SessionRead | None, *, restarted: bool) -> None:
    """Record what a read added (a file read again from its start, or gone, first takes back what it added)."""
    if read is None or read.session_id is None:
        ledger.save_read(conn, path, None, ledger.Deltas(), None, restarted=restarted)
        return
    summary = read.summary
    latest = None if summary.usage_at is None else ledger.Latest(summary.model, summary.context, None, summary.usage_at)
    ledger.save_read(conn, path, session_key(PI.id, read.session_id), read.deltas, latest, restarted=restarted)
