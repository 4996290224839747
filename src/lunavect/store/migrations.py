"""The store's schema, as the list of migrations that made it: a store at `PRAGMA user_version` N has run the
first N. A migration is only ever appended; one that landed is never edited, since stores in use ran it."""

from __future__ import annotations

MIGRATIONS: list[str] = [
    # 1: the foundation.
    """
    CREATE TABLE events (
        seq INTEGER PRIMARY KEY,
        event_id TEXT NOT NULL UNIQUE,
        provider TEXT NOT NULL,
        session_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        at REAL NOT NULL,
        data TEXT NOT NULL
    );
    CREATE INDEX events_by_session ON events (provider, session_id, seq);
    CREATE TABLE spool_cursor (
        inode INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        offset INTEGER NOT NULL,
        updated REAL NOT NULL
    );
    CREATE TABLE facts (
        id TEXT PRIMARY KEY,
        provider TEXT NOT NULL,
        session_id TEXT NOT NULL,
        data TEXT NOT NULL,
        updated REAL NOT NULL
    );
    CREATE TABLE snapshot (
        id TEXT PRIMARY KEY,
        state TEXT NOT NULL,
        listed INTEGER NOT NULL,
        data TEXT NOT NULL,
        updated REAL NOT NULL
    );
    CREATE TABLE arrangement (
        id TEXT PRIMARY KEY,
        pinned INTEGER NOT NULL DEFAULT 0,
        hidden INTEGER NOT NULL DEFAULT 0,
        hidden_at REAL,
        position REAL
    );
    CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
    CREATE TABLE collector (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    """,
    # 2: sessions identified as internal (sub-agents, tool-launched runtimes) stay so, whatever a source
    # later fails to say of them.
    """
    CREATE TABLE internal (id TEXT PRIMARY KEY, reason TEXT NOT NULL, at REAL NOT NULL);
    """,
    # 3: the panel's arrangement rules. `shown_at`: when the person last restored a session from the hidden
    # list (automatic hiding counts inactivity from then); `listed_at`: when a complete client catalog last
    # listed it; `catalog_listing`: when each client's complete catalog was last read in full (a hidden
    # session leaves the hidden list once that catalog has not listed it for 35 days).
    """
    ALTER TABLE arrangement ADD COLUMN shown_at REAL;
    ALTER TABLE arrangement ADD COLUMN listed_at REAL;
    CREATE TABLE catalog_listing (provider TEXT PRIMARY KEY, at REAL NOT NULL);
    """,
    # 4: Claude Code transcripts read without hooks. One cursor per file (identity, offset, marks) with the
    # small summary of what it said; and each record's background-work observations (ids, kinds, times),
    # kept here rather than in memory so that memory stays flat however long a transcript grows.
    """
    CREATE TABLE claude_transcript (
        path TEXT PRIMARY KEY,
        session_id TEXT NOT NULL,
        cursor TEXT NOT NULL,
        summary TEXT NOT NULL,
        updated REAL NOT NULL
    );
    CREATE INDEX claude_transcript_by_session ON claude_transcript (session_id);
    CREATE TABLE claude_observation (
        path TEXT NOT NULL,
        place INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (path, place, seq, kind)
    );
    """,
    # 5: Codex rollouts. One lifecycle cursor per file (identity, offset, mark, latest boundary, pending
    # recovery ranges) and a small summary of what was already said of it (header facts, title, activity).
    """
    CREATE TABLE codex_rollout (
        path TEXT PRIMARY KEY,
        thread_id TEXT NOT NULL,
        cursor TEXT NOT NULL,
        summary TEXT NOT NULL,
        updated REAL NOT NULL
    );
    CREATE INDEX codex_rollout_by_thread ON codex_rollout (thread_id);
    """,
    # 6: events are pruned once past the de-duplication window (`prune_events`), by when they were stored
    # (an event's own `at` may be far in the past when a transcript is read late). Events stored before this
    # migration count as stored at their own time. The two `at` indexes answer "when did the last event (of
    # this client) arrive" without reading the whole table.
    """
    ALTER TABLE events ADD COLUMN stored_at REAL;
    UPDATE events SET stored_at = at;
    CREATE INDEX events_by_stored_at ON events (stored_at);
    CREATE INDEX events_by_provider_at ON events (provider, at);
    CREATE INDEX events_by_at ON events (at);
    """,
    # 7: other hosts' sessions through sync (`lunavect.sync.remote`): each row with the bucket revision that
    # wrote it, and each host's last heartbeat (heard, how often it beats, its installation, when a person
    # last used one of its front ends).
    """
    CREATE TABLE remote_session (
        host TEXT NOT NULL,
        id TEXT NOT NULL,
        data TEXT NOT NULL,
        revision INTEGER NOT NULL,
        PRIMARY KEY (host, id)
    );
    CREATE TABLE remote_host (
        host TEXT PRIMARY KEY,
        heard REAL NOT NULL,
        beat_s REAL NOT NULL,
        revision INTEGER NOT NULL,
        machine TEXT,
        person_at REAL
    );
    """,
    # 8: the person's arrangement across machines (`lunavect.sync.arrange`): every host's latest record per
    # session with its bucket revision, and per session the merge last written into `arrangement`.
    """
    CREATE TABLE sync_arrangement (
        host TEXT NOT NULL,
        id TEXT NOT NULL,
        revision INTEGER NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (host, id)
    );
    CREATE TABLE sync_agreed (id TEXT PRIMARY KEY, data TEXT NOT NULL);
    """,
    # 9: notifications sent, one row per session and mark (kind and evidence time), so that a restart or a
    # replay never sends one twice (`lunavect.notify.sent`).
    """
    CREATE TABLE notified (
        id TEXT NOT NULL,
        mark TEXT NOT NULL,
        kind TEXT NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (id, mark)
    );
    CREATE INDEX notified_by_at ON notified (at);
    """,
    # 10: usage: token counts by file, hour, model and sender, each file's latest model and context fill
    # (`lunavect.usage.ledger`), and each client's and account's latest rate-limit windows (`lunavect.usage.limits`).
    """
    CREATE TABLE usage_ledger (
        path TEXT NOT NULL,
        id TEXT NOT NULL,
        hour INTEGER NOT NULL,
        model TEXT NOT NULL,
        subagent INTEGER NOT NULL,
        input INTEGER NOT NULL,
        output INTEGER NOT NULL,
        cache_read INTEGER NOT NULL,
        cache_write INTEGER NOT NULL,
        PRIMARY KEY (path, hour, model, subagent)
    );
    CREATE INDEX usage_ledger_by_hour ON usage_ledger (hour);
    CREATE INDEX usage_ledger_by_id ON usage_ledger (id);
    CREATE TABLE usage_state (
        path TEXT PRIMARY KEY,
        id TEXT NOT NULL,
        model TEXT,
        context INTEGER,
        context_window INTEGER,
        updated REAL NOT NULL
    );
    CREATE INDEX usage_state_by_id ON usage_state (id);
    CREATE TABLE usage_limits (
        client TEXT NOT NULL,
        account TEXT NOT NULL,
        data TEXT NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (client, account)
    );
    """,
    # 11: the cursors of clients' files read incrementally by a source that keeps no table of its own (one per
    # file: its session, the cursor, a small summary of what it said; `lunavect.evidence.file_cursors`).
    """
    CREATE TABLE file_cursor (
        path TEXT PRIMARY KEY,
        provider TEXT NOT NULL,
        session_id TEXT NOT NULL,
        cursor TEXT NOT NULL,
        summary TEXT NOT NULL,
        updated REAL NOT NULL
    );
    CREATE INDEX file_cursor_by_session ON file_cursor (provider, session_id);
    """,
    # 12: the sessions the list shows, by name: the usage figures are read for the listed set without their
    # reader knowing that the listing keeps it in the snapshot.
    "CREATE VIEW listed_session AS SELECT id FROM snapshot WHERE listed = 1",
    # 13: when this machine first heard each other host's row (`sync.remote`): a remote wait starts no earlier.
    "ALTER TABLE remote_session ADD COLUMN first_heard REAL",
    # 14: how each notification's delivery went (`lunavect.notify.sent`): sent, failed (with the reason) or not
    # shown; NULL while it is being delivered (and for the rows of the stores before this).
    """
    ALTER TABLE notified ADD COLUMN outcome TEXT;
    ALTER TABLE notified ADD COLUMN reason TEXT;
    """,
    # 15: a ready reply or an error the person dismissed without hiding the row (`lunavect.core.dismissal`): what
    # was dismissed (its state and when it entered it), so that the session's next one is news again.
    """
    ALTER TABLE arrangement ADD COLUMN dismissed TEXT;
    """,
    # 16: every change of a listed session's state, this machine's and the other hosts' (`lunavect.events.log`):
    # numbered by AUTOINCREMENT so a number is never reused once the oldest are pruned (`lunavect events --since`).
    """
    CREATE TABLE transition (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        host TEXT NOT NULL,
        id TEXT NOT NULL,
        client TEXT NOT NULL,
        from_state TEXT,
        to_state TEXT NOT NULL,
        reason TEXT,
        at REAL NOT NULL
    );
    CREATE INDEX transition_by_session ON transition (host, id, seq);
    CREATE INDEX transition_by_at ON transition (at);
    """,
    # 17: the snapshot's rows by state, for the counters and "needs you" (`listing.sessions.COUNTED_STATES`):
    # `counts`, `status` and `next --print` read the few rows that work or wait, not the whole history.
    "CREATE INDEX snapshot_by_state ON snapshot (state)",
    # 18: the usage history by quarter hour, not hour (`lunavect.usage.ledger`): a day in a time zone with a
    # half-hour offset is whole buckets. Codex's rollouts have their usage counted again, by each request's own
    # time, with their sub-agents and cache writes (`lunavect.clients.codex.usage`): their rows and the usage
    # their cursors kept are forgotten, and each is read again at its next look. Cache writes kept for an hour
    # are counted apart (`cache_write_1h`, a part of `cache_write`: priced at their own rate).
    """
    ALTER TABLE usage_ledger RENAME COLUMN hour TO quarter;
    ALTER TABLE usage_ledger ADD COLUMN cache_write_1h INTEGER NOT NULL DEFAULT 0;
    DROP INDEX usage_ledger_by_hour;
    CREATE INDEX usage_ledger_by_quarter ON usage_ledger (quarter);
    DELETE FROM usage_ledger WHERE path IN (SELECT path FROM codex_rollout);
    DELETE FROM usage_state WHERE path IN (SELECT path FROM codex_rollout);
    UPDATE codex_rollout SET cursor = json_remove(cursor, '$.usage'), summary = json_set(summary, '$.size', -1);
    """,
    # 19: the model's context window a session's hook names when its files do not (Qwen Code's `Stop`:
    # `context_limit`), by session (`lunavect.usage.ledger.set_window`): its newest, with the time it was said.
    """
    CREATE TABLE usage_window (
        id TEXT PRIMARY KEY,
        context_window INTEGER NOT NULL,
        updated REAL NOT NULL
    );
    """,
]
