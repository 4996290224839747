"""GitHub Copilot CLI sessions from their own files: every session's events file, read incrementally, hooks or
not (`lunavect.chats.source`, with Copilot CLI's files and reader, events_read.py).

A changed workspace.yaml has its events file read again (a person renamed the session), and the live registry
is read each time it changed. Files gone since (a person's `/session delete`) have their cursors and usage
forgotten at a sweep. A session's sub-agents write into its own file: their ids are reported as internal agents,
so their hooks never make rows of their own.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from lunavect.chats.source import TICK_BUDGET_BYTES, FileSource
from lunavect.clients.copilot import layout, live
from lunavect.clients.copilot.events_read import PROVIDER, Cursor, EventsRead, Summary, read_events
from lunavect.clients.copilot.usage import save_usage
from lunavect.core.model import Evidence


class CopilotSource(FileSource[EventsRead, Summary]):
    """The `Source` of Copilot CLI sessions seen through their events files."""

    name = "copilot-files"
    PROVIDER = PROVIDER

    default_root = staticmethod(layout.sessions_dir)
    session_files = staticmethod(layout.events_files)

    def __init__(self, root: Path | None = None, budget: int = TICK_BUDGET_BYTES) -> None:
        super().__init__(root, budget, Summary, "copilot.events", "copilot.events.skipped_lines")
        # The live registry as last read (its identity, size and time), read again only once it changed.
        self._registry_seen: tuple[int, int, int] | None = None

    def is_session_file(self, path: str) -> bool:
        return layout.is_events_file(path, self.root)

    def again(self, changed: set[str]) -> set[str]:
        """The events files whose workspace.yaml changed (a person renamed the session): read again for the name."""
        events = (os.path.join(os.path.dirname(p), layout.EVENTS_FILE) for p in changed)
        return {
            path
            for path, original in zip(events, changed, strict=True)
            if os.path.basename(original) == layout.WORKSPACE_FILE and layout.is_events_file(path, self.root)
        }

    def agents(self, summary: Summary) -> Iterable[str]:
        return summary.agents

    def more_evidence(self) -> list[tuple[str, Evidence]]:
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

    def read(self, path: str, stored: tuple[Cursor, Summary] | None, budget: int, now: float) -> EventsRead:
        return read_events(path, stored, budget, layout.workspace(os.path.dirname(path)).name, now)

    def save_usage(self, conn: sqlite3.Connection, path: str, read: EventsRead | None, *, restarted: bool) -> None:
        save_usage(conn, path, read, restarted=restarted)
