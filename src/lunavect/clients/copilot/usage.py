"""The tokens a GitHub Copilot CLI events file counts, into the usage history: numbers and a model name only.

Each model request writes a `session.usage_record` (its model, its prompt with the cached parts, its output, and
the prompt limit Copilot CLI keeps for the model), a sub-agent's too; the reader counts each once (events_read.py)
and hands over what a read added. The context a session fills is its latest request's prompt and reply, the
window the model's prompt limit as the record names it.
"""

from __future__ import annotations

import sqlite3

from lunavect.clients.copilot.events_read import PROVIDER, EventsRead
from lunavect.core.model import session_key
from lunavect.usage import ledger


def save_usage(conn: sqlite3.Connection, path: str, read: EventsRead | None, *, restarted: bool) -> None:
    """Record what a read added (a file read again from its start, or gone, first takes back what it added)."""
    if read is None or read.session_id is None:
        ledger.save_read(conn, path, None, ledger.Deltas(), None, restarted=restarted)
        return
    summary = read.summary
    latest = (
        None
        if summary.usage_at is None
        else ledger.Latest(summary.model, summary.context, summary.window, summary.usage_at)
    )
    ledger.save_read(conn, path, session_key(PROVIDER, read.session_id), read.deltas, latest, restarted=restarted)
