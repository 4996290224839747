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
    if restarted:
        ledger.forget(conn, path)
    if read is None or read.session_id is None:
        return
    key = session_key(PROVIDER, read.session_id)
    if read.deltas:
        ledger.record(conn, path, key, read.deltas)
    summary = read.summary
    if summary.usage_at is not None and (read.deltas or restarted):
        ledger.set_state(conn, path, key, summary.model, summary.context, summary.window, summary.usage_at)
