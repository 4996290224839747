"""The events table stays flat: an hour of events (simulated clock) leaves the store no larger than its first
minutes past the de-duplication window, and a catalog's entry, re-read on every poll, is still never folded
twice."""

from __future__ import annotations

import json
import os

from lunavect import paths, store
from lunavect.collector.tick import PRUNE_EVERY_S, Collector
from lunavect.core.model import Evidence
from lunavect.events import log as changes_log
from lunavect.evidence import spool
from lunavect.evidence.sources import Batch, Source

START = 1_800_000_000.0
SESSIONS = 6
TICK_S = 5.0
HOUR_S = 3600.0
SOAK_0 = "soak-0000-0000-4000-8000-000000000000"  # also gets hook events, after its catalog entry


class Catalog(Source):
    """A live catalog: the same entry (same id, same fact) on every poll, for the whole hour."""

    name = "catalog"

    def __init__(self) -> None:
        self.entry = (
            "catalog:soak-0000:4242:1.0:busy:",
            Evidence(
                provider="claude", session_id=SOAK_0, kind="CatalogStatus", at=START, source="catalog", status="busy"
            ),
        )

    def poll(self, conn, now):
        return Batch(evidence=[self.entry])


def _spool_lines(first: int, count: int, at: float) -> bytes:
    kinds = ("UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")
    lines = []
    for i in range(first, first + count):
        session = i % SESSIONS
        record = {
            "event": kinds[(i // SESSIONS) % len(kinds)],
            "session": f"soak-{session:04d}-0000-4000-8000-000000000000",
            "cwd": f"/home/u/projects/p{session}",
            "mode": "default",
            "v": 1,
            "id": f"{i:024x}",
            "client": "claude",
            "t": at,
            "tool": "Bash",
            "tool_use_id": f"toolu_{i}",
        }
        lines.append(json.dumps(record, separators=(",", ":")) + "\n")
    return "".join(lines).encode()


def _events_pages(conn) -> int:
    """Pages in use by the events table and its indexes (freed pages are reused, so this is its real size)."""
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page_count = conn.execute("PRAGMA page_count").fetchone()[0]
    free = conn.execute("PRAGMA freelist_count").fetchone()[0]
    return page_count - free


def test_an_hour_of_events_leaves_the_store_flat_and_a_reread_catalog_entry_folded_once(iso_env, monkeypatch):
    # The stream of state changes keeps its newest 10,000 (tests/unit/events): kept small here, so the file's
    # size measures the events table alone.
    monkeypatch.setattr(changes_log, "KEEP_COUNT", 100)
    conn = store.connect()
    catalog = Catalog()
    collector = Collector(conn, sources=[catalog])
    spool_path = paths.spool_dir() / spool.SPOOL_FILE_NAME
    spool_path.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    counts: dict[float, int] = {}
    pages: dict[float, int] = {}
    allocated: dict[float, int] = {}
    now = START
    while now - START <= HOUR_S:
        fd = os.open(spool_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, _spool_lines(written, 10, now))  # two events a second
        finally:
            os.close(fd)
        written += 10
        collector.tick(now)
        elapsed = now - START
        if elapsed % 600 == 0:
            counts[elapsed] = conn.execute("SELECT COUNT(*) FROM events").fetchone()[0]
            pages[elapsed] = _events_pages(conn)
            allocated[elapsed] = conn.execute("PRAGMA page_count").fetchone()[0]
        now += TICK_S

    window = store.DEDUP_WINDOW_S + PRUNE_EVERY_S
    bound = (window / TICK_S) * 10 + SESSIONS * 4 + 1  # within the window, plus the newest of each kind
    # Once past the window, the table holds at most the window's events, however long events keep flowing.
    for elapsed in (1200.0, 1800.0, 2400.0, 3000.0, 3600.0):
        assert counts[elapsed] <= bound, counts
    assert written > 3 * bound
    # And the file stays as large as it was at twenty minutes: freed pages are reused.
    assert max(allocated[e] for e in (2400.0, 3000.0, 3600.0)) <= allocated[1800.0] * 1.1, allocated
    assert max(pages[e] for e in (2400.0, 3000.0, 3600.0)) <= pages[1800.0] * 1.1, pages

    # The catalog's entry was re-read on every tick for an hour: stored once, never pruned, folded once.
    stored = conn.execute("SELECT stored_at FROM events WHERE event_id = ?", (catalog.entry[0],)).fetchall()
    assert stored == [(START,)]
    assert collector.poll_sources(now) == 0
    # Every session's facts still know its latest events: pruning forgets history, never state.
    states = {row[0] for row in conn.execute("SELECT state FROM snapshot WHERE id LIKE 'claude:soak-0%'")}
    assert states and states <= {"working", "ready"}
