"""A client's sessions from their chat files, read incrementally, hooks or not: the `Source` of a client whose chat
file is one record per line (`lunavect.chats.lines`), for Gemini CLI and Qwen Code, each naming its own files and reader.

Each poll reads what was appended to the chat files worth a look (those the operating system says changed,
those not read to their end yet, those of sessions that run now; every file at a sweep), newest first within
a byte budget, and hands the collector their evidence with the cursors and the tokens they added, saved inside
its transaction (`Batch.commit`). Files gone since (the client's retention sweep, a person) have their cursors
and usage forgotten at a sweep. A file whose records say it is a sub-agent's is reported as an internal agent.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path

from lunavect import store
from lunavect.chats.lines import ChatRead, Cursor, Summary
from lunavect.core.model import Evidence, session_key
from lunavect.evidence import file_cursors
from lunavect.evidence.sources import Batch, Known, NothingKnown, Source
from lunavect.files.changed import FollowedFolder, stat_newest_first
from lunavect.files.quarantine import Quarantine

log = logging.getLogger("lunavect.chats.source")

# Bytes of chat files read per poll, across files: a first look at years of history is spread over polls.
TICK_BUDGET_BYTES = 16 << 20
# Every known chat file is stat'ed at least this often, watch or not (a missed change, a file gone).
SWEEP_S = 30.0


class ChatSource(Source, ABC):
    """The `Source` of one client's sessions seen through their chat files; a subclass names the client
    (`PROVIDER`), its files and how one is read."""

    PROVIDER: str

    def __init__(self, root: Path | None = None, budget: int = TICK_BUDGET_BYTES) -> None:
        self._root = root
        self.budget = budget
        self._known: Known = NothingKnown()
        self._rows: dict[str, tuple[Cursor, Summary]] | None = None
        self._owed: set[str] = set()
        self._watch = FollowedFolder()
        self._swept_at: float | None = None
        # Chat files this reader failed on, skipped until they change (and named by `lunavect doctor`).
        self.quarantine = Quarantine(f"{self.PROVIDER}.chats")

    @property
    def root(self) -> Path:
        return self._root or self.default_root()

    @abstractmethod
    def default_root(self) -> Path:
        """The folder its chat files are under."""

    @abstractmethod
    def chat_files(self, root: Path) -> list[tuple[str, os.stat_result]]:
        """Every session's chat file under `root`, with its stat, newest first."""

    @abstractmethod
    def is_chat_name(self, name: str) -> bool:
        """Whether a file of this name is a session's chat file."""

    @abstractmethod
    def read(self, path: str, stored: tuple[Cursor, Summary] | None, budget: int, now: float) -> ChatRead:
        """Read what was appended to one file (OSError when it cannot be read)."""

    @abstractmethod
    def save_usage(self, conn: sqlite3.Connection, path: str, read: ChatRead | None, *, restarted: bool) -> None:
        """Record what a read added to the usage history."""

    def waits(self, path: str, st: os.stat_result, now: float) -> bool:
        """Whether a file is left unread this time (an older format read elsewhere, or still changing)."""
        return False

    def poll(self, conn: sqlite3.Connection, now: float) -> Batch:
        if self._rows is None:
            self._rows = file_cursors.load_reads(conn, self.PROVIDER, Summary)
        rows = self._rows
        changed = self._watch.take(self.root)
        clock = time.monotonic()
        sweep = changed is None or self._swept_at is None or clock - self._swept_at >= SWEEP_S
        gone: set[str] = set()
        if sweep:
            self._swept_at = clock
            files = self.chat_files(self.root)
            present = {path for path, _ in files}
            gone = {path for path in rows if path not in present and path.startswith(str(self.root))}
        else:
            files = stat_newest_first(self._wanted(changed or set()))
        reads: list[ChatRead] = []
        evidence: list[tuple[str, Evidence]] = []
        budget = self.budget
        behind = False
        for path, st in files:
            stored = rows.get(path)
            if stored is not None and stored[0].unchanged(st) and path not in self._owed:
                continue
            if self.quarantine.holds(path):
                continue
            if self.waits(path, st, now):
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
            evidence.extend(read.evidence)
            if read.partial:
                self._owed.add(path)
            else:
                self._owed.discard(path)
        internal = {session_key(self.PROVIDER, s.session_id) for _c, s in rows.values() if s.subagent and s.session_id}
        internal |= {session_key(self.PROVIDER, r.session_id) for r in reads if r.summary.subagent and r.session_id}
        evidence.sort(key=lambda item: item[1].at)

        def commit(conn: sqlite3.Connection) -> None:
            self.quarantine.save(conn)
            for path in gone:
                file_cursors.forget(conn, path)
                self.save_usage(conn, path, None, restarted=True)
                rows.pop(path, None)
            for read in reads:
                if read.session_id is None:
                    continue
                file_cursors.save_read(conn, self.PROVIDER, read.path, read.session_id, read.cursor, read.summary, now)
                self.save_usage(conn, read.path, read, restarted=read.restarted)
                if read.skipped:
                    store.bump_counter(conn, f"{self.PROVIDER}.chat.skipped_lines", read.skipped)
                rows[read.path] = (read.cursor, read.summary)

        backlog = "listing" if behind else "reading" if self._owed else None
        return Batch(evidence=evidence, commit=commit, internal=internal, backlog=backlog)

    def _read(self, path: str, stored: tuple[Cursor, Summary] | None, budget: int, now: float) -> ChatRead | None:
        try:
            return self.read(path, stored, budget, now)
        except OSError as exc:
            log.debug("cannot read %s: %s", path, exc)
            return None
        except Exception as exc:  # noqa: BLE001 - one bad chat file never stops the others
            self.quarantine.put(path, exc, now)
            self._owed.discard(path)
            return None

    def _wanted(self, changed: set[str]) -> set[str]:
        """The files to look at between sweeps: the changed chat files, those not read to their end, and the
        files of sessions that run now (a watch may lag behind what a running session writes)."""
        wanted = {p for p in changed if self.is_chat_name(os.path.basename(p))} | self._owed
        for key, facts in self._known.facts(self.PROVIDER).items():
            if facts.transcript and self._known.live(key):
                wanted.add(facts.transcript)
        return {p for p in wanted if p.startswith(str(self.root))}

    def attach(self, known: Known) -> None:
        self._known = known

    def wake_with(self, wake: Callable[[], None]) -> None:
        self._watch.wake_with(wake)

    def close(self) -> None:
        self._watch.close()
