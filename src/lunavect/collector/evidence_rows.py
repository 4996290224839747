"""The collector's writes of evidence and facts, a batch at a time.

A cold start stores tens of thousands of pieces of evidence in a few ticks; one statement each was a good
share of its CPU. Which pieces are new is asked in one query per few hundred ids, the new ones are inserted
with one `executemany`, and the facts they change are saved with another: the same rows as one insert each,
inside the caller's transaction (the collector is the only writer of these tables, so nothing comes between
the question and the insert).
"""

from __future__ import annotations

import sqlite3

import msgspec

from lunavect.core.model import Evidence, session_key
from lunavect.core.rules import Facts
from lunavect.usage import ledger

# Ids asked per query: well below SQLite's limit on the number of parameters of one statement.
_IDS_PER_QUERY = 500
_evidence_encoder = msgspec.json.Encoder()
_facts_encoder = msgspec.json.Encoder()


def store_new(conn: sqlite3.Connection, items: list[tuple[str, Evidence]], now: float) -> list[Evidence]:
    """Store each piece of evidence whose id is not stored yet (the first of the same id in `items`); returns
    those, in order. What was stored already is a replay after a crash, or a fact read again. A model's window
    a new piece names (a hook's, for a client whose files do not say it) goes beside the session's usage."""
    ids = list(dict.fromkeys(event_id for event_id, _ in items))
    seen: set[str] = set()
    for start in range(0, len(ids), _IDS_PER_QUERY):
        chunk = ids[start : start + _IDS_PER_QUERY]
        marks = ",".join("?" * len(chunk))
        seen.update(row[0] for row in conn.execute(f"SELECT event_id FROM events WHERE event_id IN ({marks})", chunk))
    new: list[tuple[str, Evidence]] = []
    for event_id, evidence in items:
        if event_id not in seen:
            seen.add(event_id)
            new.append((event_id, evidence))
    conn.executemany(
        "INSERT OR IGNORE INTO events (event_id, provider, session_id, kind, at, data, stored_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (
                event_id,
                evidence.provider,
                evidence.session_id,
                evidence.kind,
                evidence.at,
                _evidence_encoder.encode(evidence).decode(),
                now,
            )
            for event_id, evidence in new
        ],
    )
    for _, evidence in new:
        if evidence.context_window:
            key = session_key(evidence.provider, evidence.session_id)
            ledger.set_window(conn, key, evidence.context_window, evidence.at)
    return [evidence for _, evidence in new]


def save_facts(conn: sqlite3.Connection, changed: dict[str, Facts], now: float) -> None:
    """Save the facts of each session whose facts changed."""
    conn.executemany(
        "INSERT INTO facts (id, provider, session_id, data, updated) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT (id) DO UPDATE SET data = excluded.data, updated = excluded.updated",
        [
            (key, facts.provider, facts.session_id, _facts_encoder.encode(facts).decode(), now)
            for key, facts in changed.items()
        ],
    )
