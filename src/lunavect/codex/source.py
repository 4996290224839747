"""The Codex source: rollouts, the app-server catalog and the writer proof, as evidence for the collector.

Each poll (the collector's tick) it reads what was appended to the rollouts worth reading (recent ones,
those the hooks and the catalog named), folds each through its lifecycle cursor into evidence with ids that
are the same every time the same fact is read again, collects the catalog's last background refresh, and
returns all of it with a `commit` that stores the cursors in the collector's transaction. Internal agents
(sub-agents, review and compaction workers, memory consolidation) are reported as internal and never read
further.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec

from lunavect import paths
from lunavect.changed_files import ChangedFiles
from lunavect.codex import compressed
from lunavect.codex.catalog import Catalog, Listing
from lunavect.codex.cursor import CursorState, Lifecycle, LifecycleCursor
from lunavect.codex.history import History
from lunavect.codex.hooks import INPUT_TOOLS
from lunavect.codex.rollout import (
    ARCHIVED_DIR,
    MEMORIES_DIR,
    SESSION_INDEX,
    SESSIONS_DIR,
    Budget,
    SessionIndex,
    accepted_thread,
    client_of,
    discover,
    first_prompt_title,
    is_archived,
    is_internal,
    is_within,
    read_header,
)
from lunavect.codex.usage import UsageChange, usage_change
from lunavect.codex.vocabulary import error_code, hook_tool_name
from lunavect.codex.writer_proof import CodexWriterProof
from lunavect.core.model import Evidence, session_key
from lunavect.core.rules import Facts
from lunavect.quarantine import Quarantine
from lunavect.sources import Batch, Known, NothingKnown, Source

log = logging.getLogger("lunavect.codex.source")

PROVIDER = "codex"
DISCOVERY_INTERVAL_S = 5.0
CATALOG_INTERVAL_S = 10.0
# Reading rollouts stops for this poll after this long; the rest is read on the next ones.
READ_BUDGET_S = 0.5
# Rollout activity renews a running turn's evidence at most this often.
ACTIVITY_STEP_S = 30.0
# A thread the catalog saw updated this recently has its rollout followed even outside the recent day folders.
RECENT_S = 7 * 86400.0
# A session whose hooks or rollout spoke this recently has its rollout stat'ed at every poll.
HOT_S = 900.0


class Summary(msgspec.Struct, omit_defaults=True):
    """What the source already knows of one rollout file, beside its cursor."""

    size: int = -1
    mtime_ns: int = -1
    ino: int = -1
    header: bool = False
    rejected: bool = False
    internal: bool = False
    cwd: str | None = None
    client: str | None = None
    started: float | None = None
    prompt_title: str | None = None
    activity_at: float | None = None


class _Rollout:
    def __init__(self, path: str, thread_id: str, cursor: CursorState, summary: Summary) -> None:
        self.path, self.thread_id, self.cursor, self.summary = path, thread_id, cursor, summary
        self.dirty = False
        # What the last read changed in the usage history, until the commit stores it (codex_usage.py).
        self.usage: UsageChange | None = None


class CodexSource(Source):
    """Evidence about Codex sessions from their rollouts and Codex's own catalog."""

    name = PROVIDER

    def __init__(
        self, codex_home: Path | None = None, env: Mapping[str, str] | None = None, catalog: Catalog | None = None
    ) -> None:
        self.codex_home = codex_home or paths.codex_home()
        self.memories = self.codex_home / MEMORIES_DIR
        self.catalog = catalog if catalog is not None else Catalog(self.codex_home, env)
        self.index = SessionIndex(self.codex_home / SESSION_INDEX)
        self.proof = CodexWriterProof(native=lambda: self.catalog.native)
        self.rollouts: dict[str, _Rollout] | None = None
        self.discovered: list[Path] = []
        self.history = History(self.codex_home)
        self.changes = ChangedFiles(self.codex_home / SESSIONS_DIR)
        self._memories_of: dict[str, tuple[str | None, bool]] = {}
        self.catalog_titles: dict[str, str] = {}
        self.catalog_meta: dict[str, tuple] = {}
        # Rollouts of threads the catalog saw updated within the discovery window, wherever they lie.
        self.catalog_paths: set[str] = set()
        # What the collector knows (each session's facts, which ones are live): attached by the collector.
        self.known: Known = NothingKnown()
        self._meta_sent: dict[str, str] = {}
        self._discovered_at: float | None = None
        self._catalog_at: float | None = None
        # Rollouts this reader failed on, skipped until they change (and named by `lunavect doctor`).
        self.quarantine = Quarantine("codex.rollouts")

    # -- the poll ----------------------------------------------------------------------------------------

    def poll(self, conn: sqlite3.Connection, now: float) -> Batch:
        batch = Batch()
        if self.rollouts is None:
            self.rollouts = self._load(conn)
        facts = self.known.facts(PROVIDER)
        clock = time.monotonic()
        if self._discovered_at is None or clock - self._discovered_at >= DISCOVERY_INTERVAL_S:
            self.discovered = discover(self.codex_home, Budget())
            self._discovered_at = clock
            self._archived(facts, batch, now)
        self.history.refresh()
        self.index.refresh()

        deadline = clock + READ_BUDGET_S
        for path in self._candidates(facts, now, self.changes.take()):
            if time.monotonic() > deadline:
                break
            self.history.looked_at(path)
            if self.quarantine.holds(path):
                continue
            found = len(batch.evidence)
            try:
                self._read(path, now, batch)
            except Exception as exc:  # noqa: BLE001 - one bad rollout never drops the others' reads
                del batch.evidence[found:]
                self.quarantine.put(path, exc, now)
        if self.history.pending:
            batch.backlog = "listing"

        for key, session in facts.items():
            if self._in_memories(key, session.cwd):
                batch.internal.add(key)  # Codex's memory consolidation agent, seen by its hooks
            rollout = self.rollouts.get(session.transcript or "")
            if rollout is not None and rollout.summary.internal and rollout.thread_id == session.session_id:
                batch.internal.add(key)  # a hook-only observation whose own rollout says it is a sub-agent

        listing = self.catalog.take_result()
        if listing is not None:
            self._apply(listing, facts, batch, now)
        if self._catalog_at is None or clock - self._catalog_at >= CATALOG_INTERVAL_S:
            self._catalog_at = clock
            self.catalog.start_refresh(self._active(facts, batch), self._discovered_ids())

        dirty = [r for r in self.rollouts.values() if r.dirty]
        complete_keys = self._complete_keys(listing, batch)

        def commit(conn: sqlite3.Connection) -> None:
            self.quarantine.save(conn)
            for rollout in dirty:
                conn.execute(
                    "INSERT INTO codex_rollout (path, thread_id, cursor, summary, updated) VALUES (?, ?, ?, ?, ?) "
                    "ON CONFLICT (path) DO UPDATE SET thread_id = excluded.thread_id, cursor = excluded.cursor, "
                    "summary = excluded.summary, updated = excluded.updated",
                    (
                        rollout.path,
                        rollout.thread_id,
                        msgspec.json.encode(rollout.cursor).decode(),
                        msgspec.json.encode(rollout.summary).decode(),
                        now,
                    ),
                )
                rollout.dirty = False
                if rollout.usage is not None:
                    rollout.usage.save(conn, rollout.path, session_key(PROVIDER, rollout.thread_id))
                    rollout.usage = None

        batch.commit = commit
        if complete_keys is not None:
            batch.complete_listing = (PROVIDER, complete_keys)
        return batch

    def attach(self, known: Known) -> None:
        self.known = known

    def writer_proofs(self, facts_by_key: Mapping[str, Facts], now: float) -> dict[str, bool | None]:
        """Writer proofs for the Codex sessions that need one now (the collector passes them to `decide`)."""
        return self.proof.proofs(facts_by_key, now)

    def close(self) -> None:
        self.catalog.close()
        self.changes.close()

    # -- what to read ------------------------------------------------------------------------------------

    def _load(self, conn: sqlite3.Connection) -> dict[str, _Rollout]:
        loaded: dict[str, _Rollout] = {}
        for path, thread_id, cursor, summary in conn.execute(
            "SELECT path, thread_id, cursor, summary FROM codex_rollout"
        ):
            try:
                loaded[path] = _Rollout(
                    path,
                    thread_id,
                    msgspec.json.decode(cursor, type=CursorState),
                    msgspec.json.decode(summary, type=Summary),
                )
            except msgspec.DecodeError:
                log.warning("forgetting the unreadable cursor of %s", path)
        return loaded

    def _archived(self, facts: Mapping[str, Facts], batch: Batch, now: float) -> None:
        """A listed thread whose rollout Codex moved to `archived_sessions/` (archived after it was listed)
        leaves the current list."""
        for session in facts.values():
            path = session.transcript
            if session.archived or not path or is_archived(path, self.codex_home) or os.path.exists(path):
                continue
            if (self.codex_home / ARCHIVED_DIR / os.path.basename(path)).exists():
                evidence = Evidence(
                    provider=PROVIDER, session_id=session.session_id, kind="RolloutArchived", at=now, source="rollout"
                )
                batch.evidence.append((f"codex-archived:{session.session_id}:{now:.3f}", evidence))

    def _candidates(self, facts: Mapping[str, Facts], now: float, changed: set[str] | None) -> list[str]:
        """Rollouts worth a look this poll: those of recently active sessions first (and of every session the
        facts call live, when no change notification tells which rollouts grow), then those in
        recent day folders (only the new and the changed ones when the operating system tells which
        changed), then those the catalog saw updated recently (a resumed thread keeps its old day folder),
        then the history's not looked at yet (newest first). A finished session's rollout waits for the
        history's slow sweep."""
        ordered: dict[str, None] = {}
        hot = [
            f
            for key, f in facts.items()
            if f.transcript and (now - (f.last_event_at or 0.0) < HOT_S or (changed is None and self.known.live(key)))
        ]
        for session in sorted(hot, key=lambda f: -(f.last_event_at or 0.0)):
            ordered[session.transcript or ""] = None
        known = self.rollouts or {}
        for path in self.discovered:
            if changed is None or str(path) in changed or str(path) not in known:
                ordered[str(path)] = None
        ordered.update(dict.fromkeys(p for p in changed or () if p.endswith((".jsonl", ".jsonl.zst"))))
        for catalog_path in self.catalog_paths:
            ordered[catalog_path] = None
        ordered.update(self.history.pending)
        return list(ordered)

    def _in_memories(self, key: str, cwd: str | None) -> bool:
        """Whether a session works in Codex's memories folder, resolved once per folder it names."""
        known = self._memories_of.get(key)
        if known is None or known[0] != cwd:
            known = self._memories_of[key] = (cwd, is_within(cwd, self.memories))
        return known[1]

    def _discovered_ids(self) -> list[str]:
        ids: dict[str, None] = {}
        for path in self.discovered:
            rollout = self.rollouts.get(str(path)) if self.rollouts else None
            if rollout is not None and not rollout.summary.rejected and not rollout.summary.internal:
                ids[rollout.thread_id] = None
        return list(ids)

    def _active(self, facts: Mapping[str, Facts], batch: Batch) -> list[str]:
        """Known active tasks (their catalog read comes first): live phases, never internal agents."""
        active = [
            f
            for key, f in facts.items()
            if self.known.live(key) and key not in batch.internal and not self._in_memories(key, f.cwd)
        ]
        active.sort(key=lambda f: -(f.confirmed_at or f.last_event_at or 0.0))
        return [f.session_id for f in active]

    # -- one rollout -------------------------------------------------------------------------------------

    def _read(self, path: str, now: float, batch: Batch) -> None:
        assert self.rollouts is not None
        rollout = self.rollouts.get(path)
        if rollout is None:
            candidate = Path(path)
            thread = accepted_thread(candidate)
            if thread is None or is_archived(candidate, self.codex_home):
                return
            rollout = self.rollouts[path] = _Rollout(path, thread, CursorState(), Summary())
        summary = rollout.summary
        if summary.rejected:
            return
        try:
            st = os.stat(path)
        except OSError:
            return
        if (st.st_size, st.st_mtime_ns, st.st_ino) == (summary.size, summary.mtime_ns, summary.ino):
            if summary.internal:
                batch.internal.add(session_key(PROVIDER, rollout.thread_id))
            return
        rollout.dirty = True
        summary.size, summary.mtime_ns, summary.ino = st.st_size, st.st_mtime_ns, st.st_ino
        if not summary.header and not self._read_header(rollout):
            return
        key = session_key(PROVIDER, rollout.thread_id)
        if summary.internal:
            batch.internal.add(key)
            return
        if compressed.is_compressed(path):
            # Finished and immutable: read once, whole, as a stream (its usage counted afresh).
            life, whole = compressed.read_whole(path)
            rollout.usage = usage_change(CursorState(), None, whole, now, None)
        else:
            cursor = LifecycleCursor(rollout.cursor)
            before, old_usage = rollout.cursor, rollout.cursor.usage
            life = cursor.sample(path)
            rollout.cursor = cursor.state
            rollout.usage = usage_change(before, old_usage, cursor.state, now, rollout.usage)
        self._meta(rollout.thread_id, batch, path=path)
        if life is not None:
            for event_id, evidence in self._lifecycle(rollout, life, now):
                batch.evidence.append((event_id, evidence))

    def _read_header(self, rollout: _Rollout) -> bool:
        summary = rollout.summary
        header = read_header(rollout.path)
        if header is None:
            # Not written yet (Codex writes the first line lazily) or unreadable: try again when it changes.
            summary.size = summary.mtime_ns = summary.ino = -1
            return False
        summary.header = True
        if header.thread_id != rollout.thread_id:
            summary.rejected = True  # the name and the header disagree: not this thread's rollout
            return False
        summary.internal = is_internal(header, self.memories)
        summary.cwd, summary.started = header.cwd, header.started
        summary.client = client_of(header.originator, header.source)
        if not summary.internal:
            summary.prompt_title = first_prompt_title(rollout.path)
        return True

    def _lifecycle(self, rollout: _Rollout, life: Lifecycle, now: float) -> list[tuple[str, Evidence]]:
        thread, path = rollout.thread_id, rollout.path
        out: list[tuple[str, Evidence]] = []

        def add(ident: str, kind: str, at: float, **fields: Any) -> None:
            out.append(
                (
                    f"codex-rollout:{thread}:{ident}",
                    Evidence(
                        provider=PROVIDER,
                        session_id=thread,
                        kind=kind,
                        at=at,
                        source="rollout",
                        transcript=path,
                        **fields,
                    ),
                )
            )

        boundary = life.boundary
        if boundary is not None:
            at = boundary.at or boundary.started_at or now
            turn = boundary.turn_id or f"at{at:.3f}"
            kind = {
                "task_started": "RolloutTurnStarted",
                "task_complete": "RolloutTurnComplete",
                "turn_aborted": "RolloutTurnAborted",
            }[boundary.kind]
            add(
                f"{turn}:{boundary.kind}",
                kind,
                at,
                turn_id=boundary.turn_id,
                trigger=boundary.trigger,
                reason=boundary.reason,
                error=error_code(boundary.error, boundary.http_status),
                http_status=boundary.http_status,
            )
        if life.status == "busy" and life.start is None and life.turn_id:
            # The open turn is known by its records; its start lies beyond what was read so far.
            add(f"{life.turn_id}:seen", "RolloutTurnSeen", life.last_at or now, turn_id=life.turn_id)
        if life.status == "busy" and life.tool is not None:
            tool = life.tool
            at = tool.at or life.last_at or now
            name = hook_tool_name(tool.name)
            ident = f"{tool.call_id or f'at{at:.3f}'}:{'call' if tool.running else 'output'}"
            if tool.running and tool.name in INPUT_TOOLS:
                add(ident, "RolloutInputRequest", at, turn_id=life.turn_id, tool=name, tool_use_id=tool.call_id)
            else:
                add(
                    ident,
                    "RolloutTool",
                    at,
                    turn_id=life.turn_id,
                    tool=name if tool.running else None,
                    tool_use_id=tool.call_id,
                )
        summary = rollout.summary
        if life.status == "busy" and life.last_at is not None:
            if summary.activity_at is None or life.last_at - summary.activity_at >= ACTIVITY_STEP_S:
                summary.activity_at = life.last_at
                add(f"activity:{life.last_at:.3f}", "RolloutActivity", life.last_at, turn_id=life.turn_id)
        return out

    # -- metadata ----------------------------------------------------------------------------------------

    def _meta(self, thread: str, batch: Batch, path: str | None = None) -> None:
        """One metadata evidence whenever what is known of a thread (title, folder, client) changes.

        Its time is the thread's own (start or catalog update), never "now": reading metadata is no activity.
        """
        assert self.rollouts is not None
        rollout = self.rollouts.get(path) if path else None
        summary = rollout.summary if rollout is not None else None
        names = self.index.names
        catalog = self.catalog_meta.get(thread, (None, None, None, None))
        title = names.get(thread) or self.catalog_titles.get(thread) or (summary.prompt_title if summary else None)
        cwd = (summary.cwd if summary else None) or catalog[0]
        client = (summary.client if summary else None) or catalog[1]
        transcript = path or catalog[2]
        at = (summary.started if summary else None) or catalog[3]
        if at is None:
            return
        fields = (title, cwd, client, transcript)
        digest = hashlib.sha256(repr(fields).encode()).hexdigest()[:16]
        if self._meta_sent.get(thread) == digest:
            return
        self._meta_sent[thread] = digest
        batch.evidence.append(
            (
                f"codex-meta:{thread}:{digest}",
                Evidence(
                    provider=PROVIDER,
                    session_id=thread,
                    kind="RolloutMeta",
                    at=at,
                    source="rollout",
                    title=title,
                    cwd=cwd,
                    client=client,
                    transcript=transcript,
                ),
            )
        )

    # -- the catalog ---------------------------------------------------------------------------------------

    def _apply(self, listing: Listing, facts: Mapping[str, Facts], batch: Batch, now: float) -> None:
        for thread in listing.threads.values():
            key = session_key(PROVIDER, thread.id)
            if thread.internal:
                batch.internal.add(key)
                continue
            if thread.title:
                self.catalog_titles[thread.id] = thread.title
            if thread.path and thread.updated_at and listing.finished_at - thread.updated_at < RECENT_S:
                self.catalog_paths.add(thread.path)
            self.catalog_meta[thread.id] = (thread.cwd, thread.client, thread.path, thread.updated_at)
            path = thread.path if thread.path and self.rollouts and thread.path in self.rollouts else None
            self._meta(thread.id, batch, path=path)
            if thread.status is not None:
                # A live status: only from a server that runs the thread.
                stamp = thread.updated_at or 0.0
                batch.evidence.append(
                    (
                        f"codex-catalog:{thread.id}:{thread.status}:{thread.waiting_for}:{stamp}",
                        Evidence(
                            provider=PROVIDER,
                            session_id=thread.id,
                            kind="CatalogThread",
                            at=listing.live_at if thread.live else now,
                            source="catalog",
                            status=thread.status,
                            waiting_for=thread.waiting_for,
                        ),
                    )
                )
        for thread_id in listing.unconfirmed:
            key = session_key(PROVIDER, thread_id)
            session = facts.get(key)
            if session is None or key in batch.internal:
                continue
            # The identity stays; its runtime evidence loses authority until fresh evidence arrives.
            confirmed = session.confirmed_at if session.confirmed_at is not None else session.last_event_at
            batch.evidence.append(
                (
                    f"codex-catalog:{thread_id}:unconfirmed:{confirmed}",
                    Evidence(
                        provider=PROVIDER, session_id=thread_id, kind="CatalogUnconfirmed", at=now, source="catalog"
                    ),
                )
            )

    def _complete_keys(self, listing: Listing | None, batch: Batch) -> list[str] | None:
        if listing is None or not listing.complete:
            return None
        return [session_key(PROVIDER, t.id) for t in listing.threads.values() if not t.internal]
