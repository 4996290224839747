"""Claude Code sessions from their own files: the transcripts and the live catalog, without any hook.

Every session a person started leaves `projects/<folder>/<session>.jsonl` under `$CLAUDE_CONFIG_DIR`
(or `~/.claude`), hooks or not; each running session also has `sessions/<pid>.json` (2.1.328 writes one
for `claude -p` runs too, while they run). This source reads both on every collector tick and hands the
collector evidence with stable ids, so a re-read never duplicates or re-times a fact:

- transcripts are read incrementally (transcript.py) within a byte budget per tick, the newest files
  first; what each record means comes from records.py; the file's summary (title, folder, branch, first
  response, counts) and its background-work observations are saved with its cursor, inside the
  collector's transaction (`Batch.commit`);
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

import hashlib
import logging
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from lunavect import paths, store
from lunavect.changed_files import ChangedFiles
from lunavect.claude import agents
from lunavect.claude.catalog import CatalogEntry, is_live, read_catalog
from lunavect.claude.catalog_evidence import catalog_evidence
from lunavect.claude.discovery import HOT_S, TranscriptFinder
from lunavect.claude.glance import WHOLE_BYTES, glance
from lunavect.claude.latest import Latest
from lunavect.claude.launches import LaunchTracker
from lunavect.claude.records import Unreadable, read_record
from lunavect.claude.subagent_usage import read_agents
from lunavect.claude.summary import TranscriptSummary, take, take_usage
from lunavect.claude.transcript import AppendedLines, Cursor
from lunavect.core.model import Evidence, session_key
from lunavect.host.processes import Proc, process, process_table
from lunavect.quarantine import Quarantine
from lunavect.sources import Batch, Source
from lunavect.usage import ledger

log = logging.getLogger("lunavect.claude.files")

PROVIDER = "claude"
# Bytes of transcript read per tick, across files: a cold start over years of history is spread over
# ticks, so the collector keeps applying the rules (and freshness keeps expiring) meanwhile.
TICK_BUDGET_BYTES = 32 << 20
# Seconds of first looks (glances, whole reads of small files) per tick: a cold start lists every session in
# a few ticks, which the collector runs back to back, each starting with the hook spool.
FIRST_LOOK_S = 0.25

_cursor_encoder = msgspec.json.Encoder()
_cursor_decoder = msgspec.json.Decoder(Cursor)
_summary_decoder = msgspec.json.Decoder(TranscriptSummary)


@dataclass
class _FileRead:
    """What one read of one transcript produced, held until the collector commits it."""

    path: str
    session_id: str
    cursor: Cursor
    summary: TranscriptSummary
    restarted: bool
    # This read found the file's first timed record: the moment to ask which process wrote it.
    first_timed: bool
    observations: list[agents.Observation] = field(default_factory=list)
    evidence: list[tuple[str, Evidence]] = field(default_factory=list)
    bytes_read: int = 0
    # Lines skipped by this read (cut short, not JSON, too long): counted in the store for diagnostics.
    skipped: int = 0
    # The tokens this read added to the session's usage history.
    usage: ledger.Deltas = field(default_factory=ledger.Deltas)


def _short_hash(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=6).hexdigest()


def _summary_evidence(read: _FileRead, topic: str, key: str, kind: str, at: float, **fields) -> tuple[str, Evidence]:
    """Evidence that what the transcript says about its session (`topic`) changed to the state hashed as
    `key`. The id names that key and the read's offset, so reading the same content again gives the same id
    and the collector stores the change once."""
    return (
        f"transcript:{read.session_id}:{topic}:{key}:{read.cursor.offset}",
        Evidence(provider=PROVIDER, session_id=read.session_id, kind=kind, at=at, source="transcript", **fields),
    )


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
        # Every stored cursor, read from the store once and kept up to date by each commit.
        self._cursors: dict[str, tuple[str, Cursor]] | None = None
        # Files not read to their end yet (path -> session id): looked at again each tick until they are.
        self._owed: dict[str, str] = {}
        # Files glanced at (head and tail) but not read yet, with the time of the newest activity handed over.
        self._glanced: dict[str, float | None] = {}
        # Transcripts this reader failed on, skipped until they change (and named by `lunavect doctor`).
        self.quarantine = Quarantine("claude.transcripts")

    @property
    def root(self) -> Path:
        return self._config_dir or paths.claude_config_dir()

    # -- one tick ------------------------------------------------------------------------------------------

    def poll(self, conn: sqlite3.Connection, now: float) -> Batch:
        root = self.root
        internal: set[str] = set()
        evidence: list[tuple[str, Evidence]] = []

        entries, _unusable = read_catalog(root)
        live: list[tuple[CatalogEntry, Proc]] = []
        for entry in entries:
            proc = self._process(entry.pid)
            if proc is not None and is_live(entry, proc):
                live.append((entry, proc))
        catalogued = {entry.session_id for entry, _ in live}

        if self._changes is None or self._changes.root != root / "projects":
            self._changes = ChangedFiles(root / "projects")
        look = self._finder.find(
            root,
            [(entry.cwd or "", entry.session_id) for entry, _ in live],
            list(self._owed.items()),
            self._changes.take(),
        )
        files = look.files
        if self._cursors is None:
            self._cursors = self._stored(conn)
        stored = self._cursors
        gone: set[str] = set()
        if look.everything is not None:
            # Transcripts deleted since (the client's retention sweep, a person): their cursors go too.
            gone = set(stored) - look.everything
        unknown = [proc for _, proc in live if not self._launches.knows(proc)]
        if unknown or any(path not in stored and now - st.st_mtime < HOT_S for path, _, st in files):
            self._launches.scan(now, [proc for _, proc in live])

        for entry, proc in live:
            if self._launches.origin(proc) is not None and not entry.declared_background:
                internal.add(session_key(PROVIDER, entry.session_id))
            if entry.status is not None and entry.at is not None:
                evidence.append(catalog_evidence(entry, proc))

        reads: list[_FileRead] = []
        budget = self.budget
        deadline = time.monotonic() + FIRST_LOOK_S
        deep: list[tuple[str, str, tuple[str, Cursor] | None]] = []
        unlisted = False
        # First what lists a session or follows one that grows (glances, small files, appended lines), newest
        # first; whole reads of old files only once every session is listed, within the byte budget.
        for path, session_id, st in files:
            known = stored.get(path)
            if known is not None and known[1].unchanged(st):
                self._owed.pop(path, None)
                continue
            if self.quarantine.holds(path):
                self._owed.pop(path, None)
                continue
            self._owed[path] = session_id
            if (known is not None and known[1].partial) or path in self._glanced:
                deep.append((path, session_id, known))
                continue
            if time.monotonic() > deadline:
                unlisted = True
                continue
            if known is None and st.st_size > WHOLE_BYTES:
                self._glance(path, session_id, evidence, internal, catalogued, now)
                continue
            budget -= self._take(conn, path, session_id, known, budget, now, reads, evidence)
            if session_id not in catalogued and reads and reads[-1].path == path and self._by_tool(reads[-1]):
                internal.add(session_key(PROVIDER, session_id))
        for path, session_id, known in deep if not unlisted else []:
            if budget <= 0:
                break
            budget -= self._take(conn, path, session_id, known, budget, now, reads, evidence)

        evidence.sort(key=lambda item: item[1].at)

        def commit(conn: sqlite3.Connection) -> None:
            self.quarantine.save(conn)
            for path in gone:
                conn.execute("DELETE FROM claude_transcript WHERE path = ?", (path,))
                conn.execute("DELETE FROM claude_observation WHERE path = ?", (path,))
                ledger.forget(conn, path)
                stored.pop(path, None)
            for read in reads:
                self._save(conn, read, now)
                if read.skipped:
                    store.bump_counter(conn, "claude.transcript.skipped_lines", read.skipped)
                stored[read.path] = (read.session_id, read.cursor)

        backlog = "listing" if unlisted else "reading" if self._owed else None
        return Batch(evidence=evidence, commit=commit, internal=internal, backlog=backlog)

    def close(self) -> None:
        if self._changes is not None:
            self._changes.close()

    def _take(
        self,
        conn: sqlite3.Connection,
        path: str,
        session_id: str,
        known: tuple[str, Cursor] | None,
        budget: int,
        now: float,
        reads: list[_FileRead],
        evidence: list[tuple[str, Evidence]],
    ) -> int:
        """Read one file within `budget`; returns the bytes it cost."""
        try:
            read = self._read(conn, path, session_id, known, max(budget, 1), now)
        except OSError as exc:
            log.debug("cannot read %s: %s", path, exc)
            return 1
        except Exception as exc:  # noqa: BLE001 - one bad transcript never stops the others
            self.quarantine.put(path, exc, now)
            self._owed.pop(path, None)
            self._glanced.pop(path, None)
            return 1
        reads.append(read)
        evidence.extend(read.evidence)
        if not read.cursor.partial:
            self._owed.pop(path, None)
            self._glanced.pop(path, None)
        return max(read.bytes_read, 1)

    def _by_tool(self, read: _FileRead) -> bool:
        """A first timed record written just after an agent's tool started a Claude runtime in its folder."""
        return read.first_timed and self._launches.wrote_by_tool(read.summary.first_at, read.summary.cwd)

    def _glance(
        self,
        path: str,
        session_id: str,
        evidence: list[tuple[str, Evidence]],
        internal: set[str],
        catalogued: set[str],
        now: float,
    ) -> None:
        """List a large unread transcript from its head and tail (glance.py); its whole read comes later."""
        try:
            seen = glance(path, session_id)
        except OSError as exc:
            log.debug("cannot glance at %s: %s", path, exc)
            return
        except Exception as exc:  # noqa: BLE001 - one bad transcript never stops the others
            self.quarantine.put(path, exc, now)
            self._owed.pop(path, None)
            return
        latest = Latest(session_id)
        for facts in seen.tail:
            latest.add(facts)
        evidence.extend(latest.evidence())
        self._glanced[path] = latest.newest()
        read = _FileRead(path, session_id, Cursor(), seen.summary, restarted=False, first_timed=True)
        meta = self._meta_evidence(read, now)
        if meta is not None:
            evidence.append((meta[0].replace(":meta:", ":glance:", 1), meta[1]))
        if session_id not in catalogued and self._by_tool(read):
            internal.add(session_key(PROVIDER, session_id))

    # -- transcripts ---------------------------------------------------------------------------------------

    @staticmethod
    def _stored(conn: sqlite3.Connection) -> dict[str, tuple[str, Cursor]]:
        stored: dict[str, tuple[str, Cursor]] = {}
        for path, session_id, cursor in conn.execute("SELECT path, session_id, cursor FROM claude_transcript"):
            try:
                stored[path] = (session_id, _cursor_decoder.decode(cursor))
            except msgspec.DecodeError:
                continue  # read again from the start
        return stored

    @staticmethod
    def _summary(conn: sqlite3.Connection, path: str, session_id: str) -> TranscriptSummary:
        row = conn.execute("SELECT summary FROM claude_transcript WHERE path = ?", (path,)).fetchone()
        if row is not None:
            try:
                return _summary_decoder.decode(row[0])
            except msgspec.DecodeError:
                pass
        return TranscriptSummary(session_id=session_id)

    def _read(
        self,
        conn: sqlite3.Connection,
        path: str,
        session_id: str,
        known: tuple[str, Cursor] | None,
        budget: int,
        now: float,
    ) -> _FileRead:
        cursor = known[1] if known is not None else None
        summary = self._summary(conn, path, session_id) if known is not None else TranscriptSummary(session_id)
        if known is None and path in self._glanced:
            summary.glanced_at = self._glanced[path] or 0.0
        latest = Latest(session_id)
        observations: list[agents.Observation] = []
        skipped = 0
        usage = ledger.Deltas()
        with AppendedLines(path, cursor, budget) as lines:
            if lines.restarted:
                summary = TranscriptSummary(session_id=session_id)
            untimed = summary.first_at is None and not lines.restarted
            for offset, line in lines:
                if line is None:
                    summary.too_long += 1
                    skipped += 1
                    continue
                try:
                    facts = read_record(line, offset)
                except Unreadable:
                    summary.unreadable += 1
                    skipped += 1
                    continue
                if facts is None:
                    continue
                take(summary, facts)
                added = take_usage(summary, facts)
                if added is not None:
                    assert facts.usage is not None
                    usage.add(ledger.hour_of(facts.at, now), facts.usage.model, facts.usage.subagent, added)
                observations.extend(facts.observations)
                latest.add(facts)
            new_cursor = lines.cursor()
            read_agents(path, summary.agents, now, usage)
            read = _FileRead(
                path=path,
                session_id=session_id,
                cursor=new_cursor,
                summary=summary,
                restarted=lines.restarted,
                first_timed=untimed and summary.first_at is not None,
                observations=observations,
                bytes_read=lines.end - lines.start,
                skipped=skipped,
                usage=usage,
            )
        read.evidence.extend(latest.evidence(after=summary.glanced_at))
        if summary.glanced_at is not None and read.cursor.partial:
            return read  # a glance listed it: half a file's title and background work would only mislead
        meta = self._meta_evidence(read, now)
        if meta is not None:
            read.evidence.append(meta)
        if observations or read.restarted:
            background = self._background_evidence(conn, read, now)
            if background is not None:
                read.evidence.append(background)
        return read

    @staticmethod
    def _meta_evidence(read: _FileRead, now: float) -> tuple[str, Evidence] | None:
        """The session's title and project metadata, when they changed: never activity."""
        summary = read.summary
        values = (summary.title, summary.cwd, summary.branch, summary.version, summary.entrypoint)
        if not any(values):
            return None
        key = _short_hash(repr(values))
        if key == summary.sent_meta:
            return None
        summary.sent_meta = key
        at = summary.last_at if summary.last_at is not None else summary.first_at
        if at is None:
            at = read.cursor.mtime_ns / 1e9 if read.cursor.mtime_ns else now
        title, cwd, branch, version, entrypoint = values
        return _summary_evidence(
            read,
            "meta",
            key,
            "TranscriptMeta",
            at,
            title=title,
            cwd=cwd,
            branch=branch,
            version=version,
            entrypoint=entrypoint,
        )

    def _background_evidence(
        self, conn: sqlite3.Connection, read: _FileRead, now: float
    ) -> tuple[str, Evidence] | None:
        """The running background work, when it changed. Observations already stored are read from the
        store beside this read's new ones (a file read again from its start has none stored)."""
        known = [] if read.restarted else load_observations(conn, read.path)
        tasks = agents.finish(known + read.observations)
        running = agents.running_background(tasks)
        key = _short_hash(repr(sorted((t.kind, t.id or "", t.service) for t in running)))
        summary = read.summary
        # Nothing to say when nothing changed, or when a first read finds nothing running; a file read again
        # from its start always says it, since what the old content started may be gone.
        if key == summary.sent_background or (summary.sent_background is None and not running and not read.restarted):
            summary.sent_background = key
            return None
        summary.sent_background = key
        at = summary.last_at if summary.last_at is not None else now
        return _summary_evidence(read, "background", key, "TranscriptBackground", at, background=running)

    @staticmethod
    def _save(conn: sqlite3.Connection, read: _FileRead, now: float) -> None:
        if read.restarted:
            conn.execute("DELETE FROM claude_observation WHERE path = ?", (read.path,))
            ledger.forget(conn, read.path)
        _save_usage(conn, read, now)
        if read.observations:
            conn.executemany(
                "INSERT OR REPLACE INTO claude_observation (path, place, seq, kind, data) VALUES (?, ?, ?, ?, ?)",
                [
                    (read.path, o.place, o.seq, type(o).__struct_config__.tag, agents.observation_encoder.encode(o))
                    for o in read.observations
                ],
            )
        conn.execute(
            "INSERT INTO claude_transcript (path, session_id, cursor, summary, updated) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (path) DO UPDATE SET session_id = excluded.session_id, cursor = excluded.cursor, "
            "summary = excluded.summary, updated = excluded.updated",
            (
                read.path,
                read.session_id,
                _cursor_encoder.encode(read.cursor).decode(),
                msgspec.json.encode(read.summary).decode(),
                now,
            ),
        )


def _save_usage(conn: sqlite3.Connection, read: _FileRead, now: float) -> None:
    """The tokens this read added, and the session's model and context fill as its transcript now says."""
    key = session_key(PROVIDER, read.session_id)
    if read.usage:
        ledger.record(conn, read.path, key, read.usage)
    summary = read.summary
    if summary.model is not None or read.usage:
        ledger.set_state(conn, read.path, key, summary.model, summary.context, None, summary.last_at or now)


def load_observations(conn: sqlite3.Connection, path: str) -> list[agents.Observation]:
    """Every background-work observation stored for one transcript."""
    found = []
    for (data,) in conn.execute("SELECT data FROM claude_observation WHERE path = ?", (path,)):
        try:
            found.append(agents.observation_decoder.decode(data))
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
    return found


def background_tasks(conn: sqlite3.Connection, session_id: str) -> list[agents.TranscriptTask]:
    """The session's agents and shells as its transcript says them: every running one, then up to 20 ended."""
    row = conn.execute(
        "SELECT path FROM claude_transcript WHERE session_id = ? ORDER BY updated DESC LIMIT 1", (session_id,)
    ).fetchone()
    return agents.finish(load_observations(conn, row[0])) if row is not None else []
