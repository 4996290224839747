"""A client's sessions from their own files, read incrementally, hooks or not: the `Source` of a client whose
session file is one record per line, for Gemini CLI and Qwen Code (`ChatSource`, over `lunavect.chats.lines`),
Pi and Copilot CLI (`FileSource`, each over its own reader), each naming its own files and reader.

Each poll reads what was appended to the files worth a look (those the operating system says changed, those not
read to their end yet, those of sessions that run now; every file at a sweep), newest first within a byte budget,
and hands the collector their evidence with the cursors and the tokens they added, saved inside its transaction
(`Batch.commit`). Files gone since (the client's retention sweep, a person) have their cursors and usage
forgotten at a sweep. Sessions a file's records name as sub-agents are reported as internal agents.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Generic, TypeVar

import msgspec

from lunavect import store
from lunavect.chats.file_read import FileRead
from lunavect.chats.lines import ChatRead, Cursor, Summary
from lunavect.core.model import Evidence, session_key
from lunavect.evidence import file_cursors
from lunavect.evidence.sources import Batch, Known, NothingKnown, Source
from lunavect.files.changed import FollowedFolder, stat_newest_first
from lunavect.files.quarantine import Quarantine

log = logging.getLogger("lunavect.chats.source")

# Bytes of session files read per poll, across files: a first look at years of history is spread over polls.
TICK_BUDGET_BYTES = 16 << 20
# Every known session file is stat'ed at least this often, watch or not (a missed change, a file gone).
SWEEP_S = 30.0

S = TypeVar("S", bound=msgspec.Struct)


R = TypeVar("R", bound=FileRead[Any])


class FileSource(Source, ABC, Generic[R, S]):
    """The `Source` of one client's sessions seen through their files; a subclass names the client
    (`PROVIDER`), its files, how one is read and what it adds."""

    PROVIDER: str

    def __init__(self, root: Path | None, budget: int, summary: type[S], quarantine: str, skipped: str) -> None:
        self._root = root
        self.budget = budget
        self._summary = summary
        self._skipped = skipped
        self._known: Known = NothingKnown()
        self._rows: dict[str, tuple[Cursor, S]] | None = None
        self._owed: set[str] = set()
        self._watch = FollowedFolder()
        self._swept_at: float | None = None
        # Files this reader failed on, skipped until they change (and named by `lunavect doctor`).
        self.quarantine = Quarantine(quarantine)

    @property
    def root(self) -> Path:
        return self._root or self.default_root()

    @abstractmethod
    def default_root(self) -> Path:
        """The folder its session files are under."""

    @abstractmethod
    def session_files(self, root: Path) -> list[tuple[str, os.stat_result]]:
        """Every session's file under `root`, with its stat, newest first."""

    @abstractmethod
    def is_session_file(self, path: str) -> bool:
        """Whether a changed file is a session's file."""

    @abstractmethod
    def read(self, path: str, stored: tuple[Cursor, S] | None, budget: int, now: float) -> R:
        """Read what was appended to one file (OSError when it cannot be read)."""

    @abstractmethod
    def save_usage(self, conn: sqlite3.Connection, path: str, read: R | None, *, restarted: bool) -> None:
        """Record what a read added to the usage history."""

    def follows(self, path: str) -> bool:
        """Whether a file is read between sweeps (the files under its root, unless a client keeps some elsewhere)."""
        return path.startswith(str(self.root))

    def waits(self, path: str, st: os.stat_result, now: float) -> bool:
        """Whether a file is left unread this time (an older format read elsewhere, or still changing)."""
        return False

    def beyond(self, present: set[str]) -> set[str]:
        """Files read at a sweep besides those listed under the root."""
        return set()

    def again(self, changed: set[str]) -> set[str]:
        """Files read again between sweeps though they did not change (a file beside them did)."""
        return set()

    def agents(self, summary: S) -> Iterable[str]:
        """The sessions a file's summary names as internal agents, never listed as sessions of their own."""
        return ()

    def more_evidence(self) -> list[tuple[str, Evidence]]:
        """Evidence from elsewhere than the session files, handed on with theirs."""
        return []

    def poll(self, conn: sqlite3.Connection, now: float) -> Batch:
        if self._rows is None:
            self._rows = file_cursors.load_reads(conn, self.PROVIDER, self._summary)
        rows = self._rows
        changed = self._watch.take(self.root)
        clock = time.monotonic()
        gone: set[str] = set()
        again: set[str] = set()
        if changed is None or self._swept_at is None or clock - self._swept_at >= SWEEP_S:
            self._swept_at = clock
            files = self.session_files(self.root)
            present = {path for path, _ in files}
            gone = {path for path in rows if path not in present and path.startswith(str(self.root))}
            files += stat_newest_first(self.beyond(present))
        else:
            again = self.again(changed)
            files = stat_newest_first(self._wanted(changed) | again)
        reads: list[R] = []
        budget = self.budget
        behind = False
        for path, st in files:
            stored = rows.get(path)
            if stored is not None and stored[0].unchanged(st) and path not in self._owed and path not in again:
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
            (self._owed.add if read.partial else self._owed.discard)(path)
        found = [item for read in reads for item in read.evidence] + self.more_evidence()
        evidence = sorted(found, key=lambda item: item[1].at)
        summaries = [s for _c, s in rows.values()] + [r.summary for r in reads]
        internal = {session_key(self.PROVIDER, agent) for summary in summaries for agent in self.agents(summary)}

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
                    store.bump_counter(conn, self._skipped, read.skipped)
                rows[read.path] = (read.cursor, read.summary)

        backlog = "listing" if behind else "reading" if self._owed else None
        return Batch(evidence=evidence, commit=commit, internal=internal, backlog=backlog)

    def _read(self, path: str, stored: tuple[Cursor, S] | None, budget: int, now: float) -> R | None:
        try:
            return self.read(path, stored, budget, now)
        except OSError as exc:
            log.debug("cannot read %s: %s", path, exc)
            return None
        except Exception as exc:  # noqa: BLE001 - one bad session file never stops the others
            self.quarantine.put(path, exc, now)
            self._owed.discard(path)
            return None

    def _live(self) -> set[str]:
        """The files of sessions that run now, wherever their hook records say they are (a watch may lag behind
        what a running session writes)."""
        return {
            facts.transcript
            for key, facts in self._known.facts(self.PROVIDER).items()
            if facts.transcript and self.follows(facts.transcript) and self._known.live(key)
        }

    def _wanted(self, changed: set[str]) -> set[str]:
        """The files to look at between sweeps: the changed session files, those not read to their end, and the
        files of sessions that run now."""
        wanted = {p for p in changed if self.is_session_file(p)} | self._owed | self._live()
        return {p for p in wanted if self.follows(p)}

    def attach(self, known: Known) -> None:
        self._known = known

    def wake_with(self, wake: Callable[[], None]) -> None:
        self._watch.wake_with(wake)

    def close(self) -> None:
        self._watch.close()


class ChatSource(FileSource[ChatRead, Summary]):
    """The `Source` of a client whose chat files `lunavect.chats.lines` reads; a file whose records say it is a
    sub-agent's is reported as an internal agent."""

    def __init__(self, root: Path | None = None, budget: int = TICK_BUDGET_BYTES) -> None:
        super().__init__(root, budget, Summary, f"{self.PROVIDER}.chats", f"{self.PROVIDER}.chat.skipped_lines")

    @abstractmethod
    def chat_files(self, root: Path) -> list[tuple[str, os.stat_result]]:
        """Every session's chat file under `root`, with its stat, newest first."""

    @abstractmethod
    def is_chat_name(self, name: str) -> bool:
        """Whether a file of this name is a session's chat file."""

    def session_files(self, root: Path) -> list[tuple[str, os.stat_result]]:
        return self.chat_files(root)

    def is_session_file(self, path: str) -> bool:
        return self.is_chat_name(os.path.basename(path))

    def agents(self, summary: Summary) -> Iterable[str]:
        return (summary.session_id,) if summary.subagent and summary.session_id else ()
