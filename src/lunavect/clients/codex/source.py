"""The Codex source: rollouts, the app-server catalog and the writer proof, as evidence for the collector.

Each poll (the collector's tick) it reads what was appended to the rollouts worth reading (recent ones,
those the hooks and the catalog named), folds each through its lifecycle cursor into evidence with ids that
are the same every time the same fact is read again, collects the catalog's last background refresh, and
returns all of it with a `commit` that stores the cursors in the collector's transaction. Internal agents
(sub-agents, review and compaction workers, memory consolidation) are reported as internal and never read
further. Reading one rollout is rollout_read.py's job; what the catalog says of threads is thread_catalog.py's.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from lunavect import paths
from lunavect.clients.codex import terminals
from lunavect.clients.codex.catalog import Catalog, Listing
from lunavect.clients.codex.history import History
from lunavect.clients.codex.rollout import (
    ARCHIVED_DIR,
    MEMORIES_DIR,
    SESSION_INDEX,
    SESSIONS_DIR,
    Budget,
    SessionIndex,
    discover,
    is_archived,
    is_within,
)
from lunavect.clients.codex.rollout_read import (
    PROVIDER,
    Rollout,
    lifecycle_evidence,
    load_rollouts,
    read_rollout,
    save_rollout,
)
from lunavect.clients.codex.thread_catalog import ThreadCatalog
from lunavect.clients.codex.writer_proof import CodexWriterProof
from lunavect.core.model import Evidence, State, session_key
from lunavect.core.rules import Facts
from lunavect.core.rules.presence import TERMINAL
from lunavect.evidence.sources import Batch, Known, NothingKnown, Source
from lunavect.files.changed import ChangedFiles
from lunavect.files.folders import resolved
from lunavect.files.quarantine import Quarantine
from lunavect.host.processes import LiveProcesses, process_table, terminal

DISCOVERY_INTERVAL_S = 5.0
CATALOG_INTERVAL_S = 10.0
# Codex's app-server daemon (live statuses: a permission prompt) is read this often, on its own: never behind
# the catalog's slower refresh.
LIVE_INTERVAL_S = 2.0
# While one of its sessions waits for its person, at every tick: the daemon alone says an approval was given (no
# hook fires until the approved command ends), and a person who just approved looks at the list at once.
WAITING_LIVE_INTERVAL_S = 1.0
_WAITS = frozenset({State.PERMISSION, State.INPUT})
# Reading rollouts stops for this poll after this long; the rest is read on the next ones.
READ_BUDGET_S = 0.5
# A session whose hooks or rollout spoke this recently has its rollout stat'ed at every poll.
HOT_S = 900.0


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
        self.threads = ThreadCatalog(self.index)
        self.proof = CodexWriterProof(native=lambda: self.catalog.native)
        self.rollouts: dict[str, Rollout] | None = None
        self.discovered: list[Path] = []
        self.history = History(self.codex_home)
        self.changes = ChangedFiles(self.codex_home / SESSIONS_DIR)
        self._memories_of: dict[str, tuple[str | None, bool]] = {}
        # Followed from the sessions whose facts changed (`Known.changed`), so a poll never walks every session:
        # the recently active (key -> last event), the live ones, and each rollout path's session.
        self._recent: dict[str, float] = {}
        self._live: set[str] = set()
        # The processes of the sessions not ended that name one: (runner, terminal). A thread Codex's daemon runs
        # whose terminal is not known yet needs its TUI found (`terminals`), among processes no other names.
        self._processes: dict[str, tuple[int, int | None]] = {}
        self._by_rollout: dict[str, str] = {}
        # Rollouts read since their last commit.
        self._dirty: dict[str, Rollout] = {}
        # What the collector knows (each session's facts, which ones are live): attached by the collector.
        self.known: Known = NothingKnown()
        self._discovered_at: float | None = None
        self._catalog_at: float | None = None
        self._live_at: float | None = None
        # Rollouts this reader failed on, skipped until they change (and named by `lunavect doctor`).
        self.quarantine = Quarantine("codex.rollouts")
        # What Codex's app-server answered in a shape no reader takes (named by `doctor` while it lasts).
        self.catalog_quarantine = Quarantine("codex.catalog")
        self.daemon_quarantine = Quarantine("codex.daemon")

    # -- the poll ----------------------------------------------------------------------------------------

    def poll(self, conn: sqlite3.Connection, now: float) -> Batch:
        batch = Batch()
        if self.rollouts is None:
            self.rollouts = load_rollouts(conn)
        facts = self.known.facts(PROVIDER)  # looked up, never walked: what changed comes from `_follow`
        self._follow(facts, self.known.changed(PROVIDER), batch, now)
        clock = time.monotonic()
        told = self.changes.take()
        swept = self.history.refresh()
        due = _due(self._discovered_at, clock, DISCOVERY_INTERVAL_S)
        if due:
            self.discovered = discover(self.codex_home, Budget())
            self._discovered_at = clock
        # A rollout moved to the archive: the ones told gone, every one at the history's sweep (and at each
        # discovery when no change notification tells which).
        if swept or (due and told is None):
            self._archived(facts, list(facts), batch, now)
        elif told:
            self._archived(facts, [self._by_rollout[p] for p in told if p in self._by_rollout], batch, now)
        self.index.refresh()

        deadline = clock + READ_BUDGET_S
        for path in self._candidates(facts, now, told):
            if time.monotonic() > deadline or self.known.urgent():
                break  # the rest at the next poll: its time is up, or a hook event waits
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
            unread = sum(1 for path in self.history.pending if path not in self.rollouts)
            batch.progress = (len(self.rollouts) - (len(self.history.pending) - unread), len(self.rollouts) + unread)

        self._apply(self.catalog.take_live_result(), self.daemon_quarantine, facts, batch, now)
        if _due(self._live_at, clock, WAITING_LIVE_INTERVAL_S if self._someone_waits(facts) else LIVE_INTERVAL_S):
            self._live_at = clock
            self.catalog.start_live_refresh()
            self._find_terminals(facts, batch, now)
        listing = self.catalog.take_result()
        self._apply(listing, self.catalog_quarantine, facts, batch, now)
        if _due(self._catalog_at, clock, CATALOG_INTERVAL_S):
            self._catalog_at = clock
            self.catalog.start_refresh(self._active(facts, batch), self._discovered_ids())

        dirty = [r for r in self._dirty.values() if r.dirty]
        complete_keys = self._complete_keys(listing, batch)

        def commit(conn: sqlite3.Connection) -> None:
            self.quarantine.save(conn)
            self.catalog_quarantine.save(conn)
            self.daemon_quarantine.save(conn)
            for rollout in dirty:
                save_rollout(conn, rollout, now)
                self._dirty.pop(rollout.path, None)

        batch.commit = commit
        if complete_keys is not None:
            batch.complete_listing = (PROVIDER, complete_keys)
        return batch

    def attach(self, known: Known) -> None:
        self.known = known

    def writer_proofs(self, facts_by_key: Mapping[str, Facts], now: float) -> dict[str, bool | None]:
        """Writer proofs for the Codex sessions that need one now (the collector passes them to `decide`)."""
        return self.proof.proofs(facts_by_key, now)

    def wake_with(self, wake: Callable[[], None]) -> None:
        self.changes.listen(wake)
        self.catalog.on_live_change = wake

    def close(self) -> None:
        self.catalog.close()
        self.changes.close()

    # -- what to read ------------------------------------------------------------------------------------

    def _follow(self, facts: Mapping[str, Facts], changed: set[str], batch: Batch, now: float) -> None:
        """Take the sessions whose facts changed into what the poll follows without walking every session."""
        for key in changed:
            session = facts.get(key)
            if session is None:
                continue
            if self._in_memories(key, session.cwd):
                batch.internal.add(key)  # Codex's memory consolidation agent, seen by its hooks
            path = session.transcript
            rollout = self.rollouts.get(path or "") if self.rollouts is not None else None
            if rollout is not None and rollout.summary.internal and rollout.thread_id == session.session_id:
                batch.internal.add(key)  # a hook-only observation whose own rollout says it is a sub-agent
            if path:
                self._by_rollout[path] = key
                self._recent[key] = session.last_event_at or 0.0
            if self.known.live(key):
                self._live.add(key)
            else:
                self._live.discard(key)
            if session.pid is not None and not session.ended:
                self._processes[key] = (session.pid, session.terminal_pid)
            else:
                self._processes.pop(key, None)
        for key in [key for key, at in self._recent.items() if now - at >= HOT_S]:
            del self._recent[key]

    def _find_terminals(self, facts: Mapping[str, Facts], batch: Batch, now: float) -> None:
        """The TUIs of the threads Codex's managed daemon runs, as `terminal` evidence (`terminals`): the
        process the person sees, whose exit ends the session, where the daemon that runs it outlives it."""
        untold = [key for key, (_runner, shown) in self._processes.items() if shown is None]
        daemon = terminals.daemon_pid(self.codex_home) if untold else None
        if daemon is None:
            return
        wanted = {
            key: resolved(f.cwd)
            for key in untold
            if (f := facts.get(key)) is not None and f.pid == daemon and f.client in (None, "cli")
        }
        if not wanted:
            return
        claimed = {daemon} | {p for pair in self._processes.values() for p in pair if p is not None}
        running = terminals.terminals(process_table().values(), claimed, terminal, LiveProcesses().cwd)
        for key, found in terminals.match(wanted, running).items():
            session = facts[key]
            evidence = Evidence(
                provider=PROVIDER,
                session_id=session.session_id,
                kind="TerminalClient",
                at=now,
                source=TERMINAL,
                pid=found.pid,
                pstart=found.started,
                tty=found.tty,
            )
            batch.evidence.append((f"codex-terminal:{session.session_id}:{found.pid}:{found.started!r}", evidence))

    def _archived(self, facts: Mapping[str, Facts], keys: list[str], batch: Batch, now: float) -> None:
        """A listed thread whose rollout Codex moved to `archived_sessions/` (archived after it was listed)
        leaves the current list."""
        for key in keys:
            session = facts.get(key)
            if session is None:
                continue
            path = session.transcript
            # A stat first: the rollout is there for nearly every session, and resolving paths costs more.
            if session.archived or not path or os.path.exists(path) or is_archived(path, self.codex_home):
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
            for key in set(self._recent) | (self._live if changed is None else set())
            if (f := facts.get(key)) is not None
            and f.transcript
            and (now - (f.last_event_at or 0.0) < HOT_S or (changed is None and key in self._live))
        ]
        for session in sorted(hot, key=lambda f: -(f.last_event_at or 0.0)):
            ordered[session.transcript or ""] = None
        known = self.rollouts or {}
        for path in self.discovered:
            if changed is None or str(path) in changed or str(path) not in known:
                ordered[str(path)] = None
        ordered.update(dict.fromkeys(p for p in changed or () if p.endswith((".jsonl", ".jsonl.zst"))))
        for catalog_path in self.threads.paths:
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

    def _someone_waits(self, facts: Mapping[str, Facts]) -> bool:
        """A live session of Codex's waits for its person (a permission, a question)."""
        return any((f := facts.get(key)) is not None and f.phase in _WAITS for key in self._live)

    def _active(self, facts: Mapping[str, Facts], batch: Batch) -> list[str]:
        """Known active tasks (their catalog read comes first): live phases, never internal agents."""
        active = [
            f
            for key in self._live
            if (f := facts.get(key)) is not None
            and self.known.live(key)
            and key not in batch.internal
            and not self._in_memories(key, f.cwd)
        ]
        active.sort(key=lambda f: -(f.confirmed_at or f.last_event_at or 0.0))
        return [f.session_id for f in active]

    # -- one rollout -------------------------------------------------------------------------------------

    def _read(self, path: str, now: float, batch: Batch) -> None:
        assert self.rollouts is not None
        read = read_rollout(
            self.rollouts,
            path,
            self.codex_home,
            self.memories,
            now,
            batch,
            lambda thread: self.known.live(session_key(PROVIDER, thread)),
        )
        rollout = self.rollouts.get(path)
        if rollout is not None and rollout.dirty:
            self._dirty[path] = rollout
        if read is None:
            return
        rollout, life = read
        self.threads.meta_evidence(rollout.thread_id, batch, rollout.summary, path)
        if life is not None:
            batch.evidence.extend(lifecycle_evidence(rollout, life, now))

    # -- the catalog ---------------------------------------------------------------------------------------

    def _apply(
        self, listing: Listing | None, quarantine: Quarantine, facts: Mapping[str, Facts], batch: Batch, now: float
    ) -> None:
        """A finished read of the catalog (the daemon's or the stdio server's), once: its refused rows counted
        in its own quarantine, its threads taken."""
        if listing is not None:
            assert self.rollouts is not None  # loaded at the poll's start
            quarantine.note(listing.rejected, now)
            self.threads.apply(listing, facts, self.rollouts, batch, now)

    def _complete_keys(self, listing: Listing | None, batch: Batch) -> list[str] | None:
        if listing is None or not listing.complete:
            return None
        # The daemon's threads count as listed: the stdio server leaves them to it.
        listed = [session_key(PROVIDER, t.id) for t in listing.threads.values() if not t.internal]
        return listed + [session_key(PROVIDER, i) for i in self.catalog.live_listed if i not in listing.threads]


def _due(last: float | None, clock: float, interval: float) -> bool:
    """A periodic read is due: never done, or done `interval` ago on the monotonic clock."""
    return last is None or clock - last >= interval
