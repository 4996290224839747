"""Pi sessions from their own files: every session file, read incrementally, extension or not.

Each poll reads what was appended to the session files worth a look (those the operating system says changed,
those not read to their end yet, those of sessions that run now, and every file at a sweep), newest first within
a byte budget, through read.py, and hands the collector their evidence with the cursors and the tokens they
added, saved inside its transaction (`Batch.commit`). Files gone since (a person deleted the session from
`/resume`) have their cursors and usage forgotten at a sweep. A file kept outside the sessions folder
(`--session-dir`) is read once a hook record names it, as a running session's.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from lunavect import store
from lunavect.clients.pi import places
from lunavect.clients.pi.places import is_session_file, session_files
from lunavect.clients.pi.read import SessionRead, Summary, read_session
from lunavect.clients.pi.usage import save_usage
from lunavect.core.clients import PI
from lunavect.evidence import file_cursors
from lunavect.evidence.sources import Batch, Known, NothingKnown, Source
from lunavect.files.changed import FollowedFolder, stat_newest_first
from lunavect.files.quarantine import Quarantine
from lunavect.files.tail import Cursor

log = logging.getLogger("lunavect.clients.pi.files")

# Bytes of session files read per poll, across files: a first look at years of history is spread over polls.
TICK_BUDGET_BYTES = 16 << 20
# Every known session file is stat'ed at least this often, watch or not (a missed change, a file gone).
SWEEP_S = 30.0


class PiSource(Source):
    """The `Source` of Pi sessions seen through their session files."""

    name = "pi-files"

    def __init__(self, root: Path | None = None, budget: int = TICK_BUDGET_BYTES) -> None:
        self._root = root
        self.budget = budget
        self._known: Known = NothingKnown()
        self._rows: dict[str, tuple[Cursor, Summary]] | None = None
        self._owed: set[str] = set()
        self._watch = FollowedFolder()
        self._swept_at: float | None = None
        # Session files this reader failed on, skipped until they change (and named by `lunavect doctor`).
        self.quarantine = Quarantine("pi.sessions")

    @property
    def root(self) -> Path:
        return self._root or places.sessions_dir()

    def poll(self, conn: sqlite3.Connection, now: float) -> Batch:
        if self._rows is None:
            self._rows = file_cursors.load_reads(conn, PI.id, Summary)
        rows = self._rows
        changed = self._watch.take(self.root)
        clock = time.monotonic()
        gone: set[str] = set()
        if changed is None or self._swept_at is None or clock - self._swept_at >= SWEEP_S:
            self._swept_at = clock
            files = session_files(self.root)
            present = {path for path, _ in files}
            gone = {path for path in rows if path not in present and path.startswith(str(self.root))}
            files += stat_newest_first(self._live() - present)
        else:
            files = stat_newest_first({p for p in changed if is_session_file(p)} | self._owed | self._live())
        reads: list[SessionRead] = []
        budget = self.budget
        behind = False
        for path, st in files:
            stored = rows.get(path)
            if stored is not None and stored[0].unchanged(st) and path not in self._owed:
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
        evidence = sorted((item for read in reads for item in read.evidence), key=lambda item: item[1].at)

        def commit(conn: sqlite3.Connection) -> None:
            self.quarantine.save(conn)
            for path in gone:
                file_cursors.forget(conn, path)
                save_usage(conn, path, None, restarted=True)
                rows.pop(path, None)
            for read in reads:
                if read.session_id is None:
                    continue
                file_cursors.save_read(conn, PI.id, read.path, read.session_id, read.cursor, read.summary, now)
                save_usage(conn, read.path, read, restarted=read.restarted)
                if read.skipped:
                    store.bump_counter(conn, "pi.sessions.skipped_lines", read.skipped)
                rows[read.path] = (read.cursor, read.summary)

        backlog = "listing" if behind else "reading" if self._owed else None
        return Batch(evidence=evidence, commit=commit, backlog=backlog)

    def _read(self, path: str, stored: tuple[Cursor, Summary] | None, budget: int, now: float) -> SessionRead | None:
        try:
            return read_session(path, stored, budget, now)
        except OSError as exc:
            log.debug("cannot read %s: %s", path, exc)
            return None
        except Exception as exc:  # noqa: BLE001 - one bad session file never stops the others
            self.quarantine.put(path, exc, now)
            self._owed.discard(path)
            return None

    def _live(self) -> set[str]:
        """The files of sessions that run now, wherever their hook records say they are (a watch may lag behind
        what a running session writes; `--session-dir` keeps one outside the sessions folder)."""
        return {
            facts.transcript
            for key, facts in self._known.facts(PI.id).items()
            if facts.transcript and is_session_file(facts.transcript) and self._known.live(key)
        }

    def attach(self, known: Known) -> None:
        self._known = known

    def wake_with(self, wake: Callable[[], None]) -> None:
        self._watch.wake_with(wake)

    def close(self) -> None:
        self._watch.close()
