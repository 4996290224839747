"""Claude Code sessions from their own files: the transcripts and the live catalog, without any hook.

Every session a person started leaves `projects/<folder>/<session>.jsonl` under `$CLAUDE_CONFIG_DIR`
(or `~/.claude`), hooks or not; each running session also has `sessions/<pid>.json` (2.1.328 writes one
for `claude -p` runs too, while they run). This source reads both on every collector tick and hands the
collector evidence with stable ids, so a re-read never duplicates or re-times a fact:

- transcripts are read incrementally (transcript_read.py) within a byte budget per tick, the newest files
  first; what each record means comes from records.py; the file's summary (title, folder, branch, first
  response, counts) and its background-work observations are saved with its cursor (transcript_rows.py),
  inside the collector's transaction (`Batch.commit`);
- which files to look at: all of them at a sweep every FULL_SWEEP_S; between sweeps the hot ones (written
  lately, in a folder that changed, or named by the live catalog), so thousands of old transcripts cost
  next to nothing per tick;
- a transcript's activity is handed over as the last prompt and what followed it: everything before a
  newer prompt is superseded, so a long history costs a few rows, not one per record;
- catalog entries count only for their own live process (catalog.py);
- a Claude runtime started by another agent's command (host/ancestry.py) is reported as internal: by its
  catalog entry's pid, or, for a run the catalog does not name, by the process in the transcript's folder
  that started just before its first record.

The hooks, when installed, report the same sessions exactly; the rules let their events win.
"""

from __future__ import annotations

import itertools
import logging
import os
import sqlite3
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from lunavect import paths, store
from lunavect.clients.claude.catalog import CatalogEntry, is_live, read_catalog
from lunavect.clients.claude.catalog_evidence import catalog_evidence
from lunavect.clients.claude.discovery import HOT_S, TranscriptFinder
from lunavect.clients.claude.file_read import FileRead
from lunavect.clients.claude.glance import GLANCED_BYTES, WHOLE_BYTES, glance
from lunavect.clients.claude.latest import PROVIDER, Latest
from lunavect.clients.claude.launches import LaunchTracker
from lunavect.clients.claude.transcript import Cursor
from lunavect.clients.claude.transcript_read import meta_evidence, read_transcript
from lunavect.clients.claude.transcript_rows import background_tasks, forget, save, stored_cursors
from lunavect.core.model import Evidence, session_key
from lunavect.evidence.sources import Batch, Known, NothingKnown, Source
from lunavect.files.changed import ChangedFiles
from lunavect.files.quarantine import Quarantine
from lunavect.host.processes import Proc, process, process_table

log = logging.getLogger("lunavect.clients.claude.files")

# Bytes of transcript read per tick, across files: a cold start over years of history is spread over
# ticks, so the collector keeps applying the rules (and freshness keeps expiring) meanwhile.
TICK_BUDGET_BYTES = 32 << 20
# Seconds of first looks (glances, whole reads of new small files) per tick: a cold start lists every session in
# a few ticks, which the collector runs back to back, each starting with the hook spool.
FIRST_LOOK_S = 0.25


@dataclass
class _Poll:
    """What one poll gathers as its phases run: the evidence, the reads to save at the commit, the sessions an
    agent's tool started, and how much of the byte budget is left."""

    conn: sqlite3.Connection
    now: float
    budget: int
    evidence: list[tuple[str, Evidence]] = field(default_factory=list)
    reads: list[FileRead] = field(default_factory=list)
    internal: set[str] = field(default_factory=set)
    catalogued: set[str] = field(default_factory=set)  # sessions the live catalog names
    looked: set[str] = field(default_factory=set)  # files the first looks stat'ed, owed or not
    deep: list[tuple[str, str, tuple[str, Cursor] | None]] = field(default_factory=list)  # kept for whole reads
    unlisted: bool = False  # first looks left for the next poll: a session may be missing from the list


class ClaudeFilesSource(Source):
    """The `Source` of Claude Code sessions seen through their transcripts and live catalog."""

    name = "claude-files"

    def __init__(
        self,
        config_dir: Path | None = None,
        budget: int = TICK_BUDGET_BYTES,
        processes: Callable[[], dict[int, Proc]] = process_table,
        one_process: Callable[[int], Proc | None] = process,
    ) -> None:
        self._config_dir = config_dir
        self.budget = budget
        self._process = one_process
        self._launches = LaunchTracker(processes)
        self._finder = TranscriptFinder()
        self._changes: ChangedFiles | None = None
        # The live catalog's folder, watched only to wake a collector at rest when a session starts or ends.
        self._catalog_changes: ChangedFiles | None = None
        self._wake: Callable[[], None] | None = None
        self._known: Known = NothingKnown()
        # Every stored cursor, read from the store once and kept up to date by each commit.
        self._cursors: dict[str, tuple[str, Cursor]] | None = None
        # Files not read to their end yet (path -> session id): looked at again each tick until they are.
        self._owed: dict[str, str] = {}
        # Files glanced at (head and tail) but not read yet, with the time of the newest activity handed over.
        self._glanced: dict[str, float | None] = {}
        # Files found but given no first look yet (no glance, no read), newest first, with the stat they were
        # found with: a tick of a cold start takes the next of them, and stats none of the others again (their
        # stat only chose between a glance and a whole read; a file that changes since is found again).
        self._unlooked: OrderedDict[str, tuple[str, os.stat_result]] = OrderedDict()
        # Transcripts this reader failed on, skipped until they change (and named by `lunavect doctor`).
        self.quarantine = Quarantine("claude.transcripts")
        # Catalog files (sessions/<pid>.json) no client version writes: set aside and named by `doctor` too.
        self.catalog_quarantine = Quarantine("claude.catalog")

    @property
    def root(self) -> Path:
        return self._config_dir or paths.claude_config_dir()

    # -- one tick ------------------------------------------------------------------------------------------

    def poll(self, conn: sqlite3.Connection, now: float) -> Batch:
        root = self.root
        tick = _Poll(conn, now, self.budget)
        live = self._live_catalog(root, now)
        tick.catalogued = {entry.session_id for entry, _ in live}
        files, gone = self._find(root, conn, live, now)
        self._catalog_evidence(tick, live)
        self._first_looks(tick, files)
        # Whole reads wait while any source still lists (the collector's view): the list comes first.
        if not tick.unlisted and not self._known.listing():
            self._whole_reads(tick)
        return self._batch(tick, gone)

    def _live_catalog(self, root: Path, now: float) -> list[tuple[CatalogEntry, Proc]]:
        """The catalog's entries whose own process still runs (catalog.py)."""
        entries, _unusable = read_catalog(root, self.catalog_quarantine, now)
        live: list[tuple[CatalogEntry, Proc]] = []
        for entry in entries:
            proc = self._process(entry.pid)
            if proc is not None and is_live(entry, proc):
                live.append((entry, proc))
        return live

    def _find(
        self, root: Path, conn: sqlite3.Connection, live: list[tuple[CatalogEntry, Proc]], now: float
    ) -> tuple[list[tuple[str, str, os.stat_result]], set[str]]:
        """The transcripts to look at this tick (discovery.py), and those deleted since the last sweep (the
        client's retention sweep, a person), whose cursors go too. Files owed are not stat'ed again: those
        waiting for a first look keep the stat they were found with, and a whole read opens its file anyway
        (and forgets one that is gone), so a tick of a cold start costs what it reads, not a stat of every file
        still waiting."""
        if self._changes is None or self._changes.root != root / "projects":
            self._changes, self._catalog_changes = self._watches(root)
        assert self._catalog_changes is not None
        self._catalog_changes.take()  # the catalog is read whole at every poll: its changes only wake
        stored = self._stored(conn)
        look = self._finder.find(root, [(entry.cwd or "", entry.session_id) for entry, _ in live], self._changes.take())
        for path, _, _ in look.files:
            self._unlooked.pop(path, None)  # found again: its new stat counts
        gone: set[str] = set()
        if look.everything is not None:
            gone = set(stored) - look.everything
            for path in [path for path in self._unlooked if path not in look.everything]:
                del self._unlooked[path]
                self._owed.pop(path, None)
        unknown = [proc for _, proc in live if not self._launches.knows(proc)]
        if unknown or any(path not in stored and now - st.st_mtime < HOT_S for path, _, st in look.files):
            self._launches.scan(now, [proc for _, proc in live])
        return look.files, gone

    def _catalog_evidence(self, tick: _Poll, live: list[tuple[CatalogEntry, Proc]]) -> None:
        """The live sessions' states from the catalog, and which of them an agent's command started."""
        for entry, proc in live:
            if self._launches.origin(proc) is not None and not entry.declared_background:
                tick.internal.add(session_key(PROVIDER, entry.session_id))
            if entry.status is not None and entry.at is not None:
                tick.evidence.append(catalog_evidence(entry, proc))

    def _first_looks(self, tick: _Poll, files: list[tuple[str, str, os.stat_result]]) -> None:
        """First what lists a session or follows one that grows (glances, new small files, appended lines),
        newest first, within FIRST_LOOK_S; the files found before and still waiting come after those found
        now. A file already read in part, or glanced at, is kept for the whole reads."""
        stored = self._stored(tick.conn)
        deadline = time.monotonic() + FIRST_LOOK_S
        first_looks = 0
        found = ((path, session_id, st, False) for path, session_id, st in files)
        for path, session_id, st, waited in itertools.chain(found, self._waiting_first_looks()):
            tick.looked.add(path)
            known = stored.get(path)
            if (known is not None and known[1].unchanged(st)) or self.quarantine.holds(path):
                self._owed.pop(path, None)
                continue
            self._owed[path] = session_id
            if (known is not None and known[1].partial) or path in self._glanced:
                tick.deep.append((path, session_id, known))
                continue
            if tick.unlisted or (first_looks and time.monotonic() > deadline) or self._known.urgent():
                # The rest waits for the next poll (its time is up, or a hook event waits), with its stat.
                tick.unlisted = True
                self._unlooked[path] = (session_id, st)
                if waited:
                    self._unlooked.move_to_end(path, last=False)
                    break
                continue
            first_looks += 1
            self._first_look(tick, path, session_id, st, known)

    def _first_look(
        self, tick: _Poll, path: str, session_id: str, st: os.stat_result, known: tuple[str, Cursor] | None
    ) -> None:
        """A file never read lists its session from a glance (a small old one too, unless the glance would read
        all of it and the tick's budget holds it: then its whole read costs about the same); the whole read
        follows from the next poll on, once nothing is unlisted. A small file written lately may be a live
        session's: it is read whole at once, as are the lines appended to a file read before."""
        if (
            known is None
            and (st.st_size > WHOLE_BYTES or tick.now - st.st_mtime >= HOT_S)
            and st.st_size > min(GLANCED_BYTES, tick.budget)
        ):
            self._glance(tick, path, session_id)
            return
        self._take(tick, path, session_id, known)
        reads = tick.reads
        if session_id not in tick.catalogued and reads and reads[-1].path == path and self._by_tool(reads[-1]):
            tick.internal.add(session_key(PROVIDER, session_id))

    def _whole_reads(self, tick: _Poll) -> None:
        """Within the byte budget: the files kept for a whole read, then the files owed that this tick did not
        stat, in the order they were found (newest first)."""
        stored = self._stored(tick.conn)
        waiting = ((p, sid, stored.get(p)) for p, sid in list(self._owed.items()) if p not in tick.looked)
        for path, session_id, known in itertools.chain(tick.deep, waiting):
            if tick.budget <= 0 or self._known.urgent():
                break  # the rest at the next poll: a hook event is taken first
            self._take(tick, path, session_id, known)

    def _batch(self, tick: _Poll, gone: set[str]) -> Batch:
        """The tick's evidence in time order; its reads saved, and the deleted files forgotten, at the
        collector's commit (`Batch.commit`)."""
        stored = self._stored(tick.conn)
        tick.evidence.sort(key=lambda item: item[1].at)

        def commit(conn: sqlite3.Connection) -> None:
            self.quarantine.save(conn)
            self.catalog_quarantine.save(conn)
            for path in gone:
                forget(conn, path)
                stored.pop(path, None)
            for read in tick.reads:
                save(conn, read, tick.now)
                if read.skipped:
                    store.bump_counter(conn, "claude.transcript.skipped_lines", read.skipped)
                stored[read.path] = (read.session_id, read.cursor)

        backlog = "listing" if tick.unlisted else "reading" if self._owed else None
        transcripts = max(self._finder.known, len(self._owed))
        progress = (transcripts - len(self._owed), transcripts) if backlog is not None else None
        return Batch(evidence=tick.evidence, commit=commit, internal=tick.internal, backlog=backlog, progress=progress)

    def _stored(self, conn: sqlite3.Connection) -> dict[str, tuple[str, Cursor]]:
        """Every stored cursor, read from the store once and kept up to date by each commit."""
        if self._cursors is None:
            self._cursors = stored_cursors(conn)
        return self._cursors

    def _waiting_first_looks(self) -> Iterator[tuple[str, str, os.stat_result, bool]]:
        """The files still waiting for a first look, newest first, each taken out as it is handed over."""
        while self._unlooked:
            path, (session_id, st) = self._unlooked.popitem(last=False)
            yield path, session_id, st, True

    def attach(self, known: Known) -> None:
        self._known = known

    def wake_with(self, wake: Callable[[], None]) -> None:
        self._wake = wake
        for watch in (self._changes, self._catalog_changes):
            if watch is not None:
                watch.listen(wake)

    def _watches(self, root: Path) -> tuple[ChangedFiles, ChangedFiles]:
        self.close()
        watches = ChangedFiles(root / "projects"), ChangedFiles(root / "sessions")
        if self._wake is not None:
            for watch in watches:
                watch.listen(self._wake)
        return watches

    def close(self) -> None:
        for watch in (self._changes, self._catalog_changes):
            if watch is not None:
                watch.close()

    def _take(self, tick: _Poll, path: str, session_id: str, known: tuple[str, Cursor] | None) -> None:
        """Read one file within the tick's budget, and take what it cost from the budget."""
        try:
            glanced = (self._glanced[path] or 0.0) if path in self._glanced else None
            read = read_transcript(tick.conn, path, session_id, known, max(tick.budget, 1), tick.now, glanced)
        except OSError as exc:
            # Gone, or no longer a regular file: not owed until it is found again (a change or the sweep).
            log.debug("cannot read %s: %s", path, exc)
            self._owed.pop(path, None)
            tick.budget -= 1
            return
        except Exception as exc:  # noqa: BLE001 - one bad transcript never stops the others
            self.quarantine.put(path, exc, tick.now)
            self._owed.pop(path, None)
            self._glanced.pop(path, None)
            tick.budget -= 1
            return
        tick.reads.append(read)
        tick.evidence.extend(read.evidence)
        if not read.cursor.partial:
            self._owed.pop(path, None)
            self._glanced.pop(path, None)
        tick.budget -= max(read.bytes_read, 1)

    def _by_tool(self, read: FileRead) -> bool:
        """A first timed record written just after an agent's tool started a Claude runtime in its folder."""
        return read.first_timed and self._launches.wrote_by_tool(read.summary.first_at, read.summary.cwd)

    def _glance(self, tick: _Poll, path: str, session_id: str) -> None:
        """List a large unread transcript from its head and tail (glance.py); its whole read comes later."""
        try:
            seen = glance(path, session_id)
        except OSError as exc:
            log.debug("cannot glance at %s: %s", path, exc)
            return
        except Exception as exc:  # noqa: BLE001 - one bad transcript never stops the others
            self.quarantine.put(path, exc, tick.now)
            self._owed.pop(path, None)
            return
        latest = Latest(session_id)
        for facts in seen.tail:
            latest.add(facts)
        tick.evidence.extend(latest.evidence())
        self._glanced[path] = latest.newest()
        read = FileRead(path, session_id, Cursor(), seen.summary, restarted=False, first_timed=True)
        meta = meta_evidence(read, tick.now)
        if meta is not None:
            tick.evidence.append((meta[0].replace(":meta:", ":glance:", 1), meta[1]))
        if session_id not in tick.catalogued and self._by_tool(read):
            tick.internal.add(session_key(PROVIDER, session_id))


__all__ = ["PROVIDER", "ClaudeFilesSource", "background_tasks"]
