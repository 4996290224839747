"""The tokens OpenCode's database counts for a session, as lunavect's usage history takes them.

Each assistant message holds its request's tokens (`tokens`: `input` without what the cache read or wrote,
`output` without `reasoning`, `cache.read`, `cache.write`: disjoint, as lunavect counts them; reasoning is
output here). A session's history is its messages' and its sub-agents' (its child sessions', as `subagent`),
by quarter hour and model; it is read again whole when one of them changed (the ledger forgets the session's rows
first), so a message updated while it streamed is never counted twice. The context is the last request of the
session itself.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from lunavect.clients.opencode.database import MessageRow
from lunavect.core.tokens import Tokens
from lunavect.usage import ledger


@dataclass
class SessionTokens:
    """One session's usage as its messages say it, held until the collector commits."""

    key: str
    path: str  # the ledger's name for what was read: the database and the session
    deltas: ledger.Deltas
    model: str | None
    context: int | None
    at: float

    def save(self, conn: sqlite3.Connection) -> None:
        ledger.forget(conn, self.path)
        ledger.record(conn, self.path, self.key, self.deltas)
        ledger.set_state(conn, self.path, self.key, self.model, self.context, None, self.at)


def session_tokens(key: str, path: str, root: str, messages: Sequence[MessageRow], now: float) -> SessionTokens:
    deltas = ledger.Deltas()
    last: MessageRow | None = None
    for message in messages:
        tokens = Tokens(*message.tokens)
        if not tokens.empty:
            deltas.add(ledger.quarter_of(message.created, now), message.model, message.session != root, tokens)
        if message.session == root and not message.summary and not tokens.empty:
            last = message
    context = None
    if last is not None:
        input_tokens, _output, cache_read, cache_write = last.tokens
        context = input_tokens + cache_read + cache_write or None
    at = max((m.completed or m.created or 0.0 for m in messages), default=now) or now
    return SessionTokens(key, path, deltas, last.model if last else None, context, at)
