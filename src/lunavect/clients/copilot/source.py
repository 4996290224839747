"""GitHub Copilot CLI sessions from their own files: every session's events file, read incrementally, hooks or
not.

Each poll reads what was appended to the events files worth a look (those the operating system says changed, with
their workspace.yaml; those not read to their end yet; those of sessions that run now; every file at a sweep),
newest first within a byte budget, through events_read.py, and hands the collector their evidence with the
cursors and the tokens they added, saved inside its transaction (`Batch.commit`). Files gone since (a person's
`/session delete`) have their cursors and usage forgotten at a sweep. A session's sub-agents write into its own
file: their ids are reported as internal agents, so their hooks never make rows of their own.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from lunavect import store
from lunavect.clients.copilot import layout, live
from lunavect.clients.copilot.events_read import PROVIDER, Cursor, EventsRead, Summary, read_events
from lunavect.clients.copilot.usage import save_usage
from lunavect.core.model import Evidence, session_key
from lunavect.evidence import file_cursors
from lunavect.evidence.sources import Batch, Known, NothingKnown, Source
from lunavect.files.changed import FollowedFolder, stat_newest_first
from lunavect.files.quarantine import Quarantine

log = logging.getLogger("lunavect.clients.copilot.files")

# Bytes of events files read per poll, across files: a first look at years of history is spread over polls.
TICK_BUDGET_BYTES = 16 << 20
# Every known events file is stat'ed at least this often, watch or not (a missed change, a file gone).
SWEEP_S = 30.0


class CopilotSource(Source):
    """The `Source` of Copilot CLI sessions seen through their events files."""

    name = "copilot-files"

    def __init__(self, root: Path | None = None, budget: int = TICK_BUDGET_BYTES) -> None:
        self._root = root
        self.budget = budget
        self._known: Known = NothingKnown()
        self._rows: dict[str, tuple[Cursor, Summary]] | None = None
        self._owed: set[str] = set()
        self._watch = FollowedFolder()
        self._swept_at: float | None = None
        # The live registry as last read (its identity, size and time), read again only once it changed.
        self._registry_seen: tuple[int, int, int] | None = None
        # Events files this reader failed on, skipped until they change (and named by `lunavect doctor`).
        self.quarantine = Quarantine("copilot.events")

    @property
    def root(self) -> Path:
        return self._root or layout.sessions_dir()

    def poll(self, conn: sqlite3.Connection, now: float) -> Batch:
        if self._rows is None:
            self._rows = file_cursors.load_reads(conn, PROVIDER, Summary)
        rows = self._rows
        changed = self._watch.take(self.root)
        clock = time.monotonic()
        gone: set[str] = set()
        if changed is None or self._swept_at is None or clock - self._swept_at >= SWEEP_S:
            self._swept_at = clock
            files = layout.events_files(self.root)
            present = {path for path, _ in files}
            gone = {path for path in rows if path not in present and path.startswith(str(self.root))}
            renamed = set()
        else:
            renamed = self._renamed(changed)
            files = stat_newest_first(self._wanted(changed) | renamed)
        reads: list[EventsRead] = []
        budget = self.budget
        behind = False
        for path, st in files:
            stored = rows.get(path)
            if stored is not None and stored[0].unchanged(st) and path not in self._owed | renamed:
                continue
            if self.quarantine.holds(path):
                continue
            if budget <= 0:
                self._owed.add(path)
                behind = True
                continue
            read = self._read(path, stored, budget, now)
            if read is None:
                continue
            budget -= max(read.bytes_read, 1)
            reads.append(read)
            (self._owed.add if read.partial else self._owed.discard)(path)
        found = [item for read in reads for item in read.evidence] + self._registry()
        evidence = sorted(found, key=lambda item: item[1].at)
        summaries = [s for _c, s in rows.values()] + [r.summary for r in reads]
        internal = {session_key(PROVIDER, agent) for summary in summaries for agent in summary.agents}

        def commit(conn: sqlite3.Connection) -> None:
            self.quarantine.save(conn)
            for path in gone:
                file_cursors.forget(conn, path)
                save_usage(conn, path, None, restarted=True)
                rows.pop(path, None)
            for read in reads:
                if read.session_id is None:
                    continue
                file_cursors.save_read(conn, PROVIDER, read.path, read.session_id, read.cursor, read.summary, now)
                save_usage(conn, read.path, read, restarted=read.restarted)
                if read.skipped:
                    store.bump_counter(conn, "copilot.events.skipped_lines", read.skipped)
                rows[read.path] = (read.cursor, read.summary)

        backlog = "listing" if behind else "reading" if self._owed else None
        return Batch(evidence=evidence, commit=commit, internal=internal, backlog=backlog)

    def _registry(self) -> list[tuple[str, Evidence]]:
        """The live registry's entries as the catalog's statuses, when it changed since the last look."""
        path = live.registry_path() if self._root is None else str(self.root.parent / live.REGISTRY)
        try:
            st = os.stat(path)
        except OSError:
            self._registry_seen = None
            return []
        seen = (st.st_ino, st.st_size, st.st_mtime_ns)
        if seen == self._registry_seen:
            return []
        self._registry_seen = seen
        return [
            live.registry_evidence(entry, live.holder(str(self.root / entry.session_id)))
            for entry in live.read_registry(path)
        ]

    def _read(self, path: str, stored: tuple[Cursor, Summary] | None, budget: int, now: float) -> EventsRead | None:
        name = layout.workspace(os.path.dirname(path)).name
        try:
            return read_events(path, stored, budget, name, now)
        except OSError as exc:
            log.debug("cannot read %s: %s", path, exc)
            return None
        except Exception as exc:  # noqa: BLE001 - one bad events file never stops the others
            self.quarantine.put(path, exc, now)
            self._owed.discard(path)
            return None

    def _renamed(self, changed: set[str]) -> set[str]:
        """The events files whose workspace.yaml changed (a person renamed the session): read again for the name."""
        events = (os.path.join(os.path.dirname(p), layout.EVENTS_FILE) for p in changed)
        return {
            path
            for path, original in zip(events, changed, strict=True)
            if os.path.basename(original) == layout.WORKSPACE_FILE and layout.is_events_file(path, self.root)
        }

    def _wanted(self, changed: set[str]) -> set[str]:
        """The files to look at between sweeps: the changed events files, those not read to their end, and the
        files of sessions that run now (a watch may lag behind what a running session writes)."""
        wanted = {p for p in changed if layout.is_events_file(p, self.root)} | self._owed
        for key, facts in self._known.facts(PROVIDER).items():
            if facts.transcript and self._known.live(key):
                wanted.add(facts.transcript)
        return {p for p in wanted if p.startswith(str(self.root))}

    def attach(self, known: Known) -> None:
        self._known = known

    def wake_with(self, wake: Callable[[], None]) -> None:
        self._watch.wake_with(wake)

    def close(self) -> None:
        self._watch.close()
