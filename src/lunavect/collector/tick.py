"""The collector: the one process per machine that turns sources into the stored snapshot.

A lock file decides which process is the collector; front ends start one on demand (`ensure_running`) and
`lunavect daemon` runs one in the foreground (collector/loop.py, the process's life). Each tick it ingests
the hook spool exactly once, folds the new evidence into each session's facts, applies the rules with the
current time (so freshness expires even when no new evidence arrives) and writes the snapshot rows that
changed. watchfiles only wakes it early;
byte offsets in the store are the truth. It alone commits what sources find (they get a read-only view of
its facts, `sources.Known`), and tells front ends of each commit that changes what they show
(`lunavect.listing.changes`).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType

import msgspec

from lunavect import clients, paths, store
from lunavect.collector import evidence_rows, setup_probe, setup_report
from lunavect.collector.snapshot import build_session
from lunavect.core.model import Evidence, State, session_key
from lunavect.core.rules import LIVE_PHASES, Facts, decide, fold, settled
from lunavect.core.rules.presence import shown_by
from lunavect.events import log as changes_log
from lunavect.evidence import spool, spool_record
from lunavect.evidence.sources import Source
from lunavect.faults import Errors
from lunavect.host.network import NetworkWatch, has_network
from lunavect.host.processes import is_alive
from lunavect.listing import arrangement
from lunavect.notify.decide import Transition

log = logging.getLogger("lunavect.collector")

# At rest, the tick time is committed at most this often (`tick(beat=False)`): `lunavect doctor` reads its age
# (a collector silent for 30 s is behind), and a front end that waits for a tick pokes, which asks for a beat.
BEAT_EVERY_S = 5.0
# The collector value that says how far a first start's reading of the history got ("412 of 3,000"; empty at rest).
READING_KEY = "reading"
# How often the events table is pruned of what is past the de-duplication window (`store.prune_events`).
PRUNE_EVERY_S = 60.0

_facts_encoder = msgspec.json.Encoder()
_facts_decoder = msgspec.json.Decoder(Facts)
_session_encoder = msgspec.json.Encoder()


class Collector:
    """Ingest and snapshot, one tick at a time. Holds each session's facts, never its history."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        spool_dir: Path | None = None,
        sources: list[Source] | None = None,
    ) -> None:
        self.conn = conn
        self.spool_dir = spool_dir or paths.spool_dir()
        self.sources: list[Source] = sources if sources is not None else []
        self._facts: dict[str, Facts] = {}
        # Sessions a source identified as internal (sub-agents, tool-launched runtimes): never listed.
        self.internal: set[str] = set()
        self._written: dict[str, bytes] = {}
        # The sessions whose rows are not known to rest (`settled`): decided at every snapshot. A settled
        # session's row stands until new evidence changes its facts.
        self._unsettled: set[str] = set()
        # Resting rows that say their client is open: its process is asked again at every snapshot (a client
        # killed without its SessionEnd leaves no evidence), so such a row rests only while it stays open.
        self._open: set[str] = set()
        # What the sources left for their next polls ("listing" first, then "reading"; None when caught up).
        self.backlog: str | None = None
        self.network = NetworkWatch()
        self._pruned_at: float | None = None
        self._pruned_cut: float | None = None  # the last prune's cut: events before it are pruned already
        self._probed_at: float | None = None
        self.errors = Errors(log)  # failures logged at a bounded rate, the newest kept for `lunavect doctor`
        # Called after each commit that changes what front ends show (the change feed's publisher).
        self.notify: Callable[[], None] = _nobody
        self._host: str | None = None
        self._decided_at = 0.0
        self._reading: str | None = None  # the progress last said (`READING_KEY`)
        self._beat_at: float | None = None
        # Called after each snapshot commit with the rows it changed (the notifier's feed: committed
        # transitions, never raw events). It must not block: the notifier queues them for its own thread.
        self.transitions: Callable[[list[Transition]], None] = _nobody_listens
        self._states: dict[str, State] = {}
        for key, data in conn.execute("SELECT id, data FROM facts"):
            try:
                self._facts[key] = _facts_decoder.decode(data)
            except msgspec.DecodeError:
                log.warning("dropping unreadable facts of %s", key)
        for key, state, data in conn.execute("SELECT id, state, data FROM snapshot"):
            self._written[key] = data.encode() if isinstance(data, str) else data
            self._states[key] = State(state)
        self.internal = {row[0] for row in conn.execute("SELECT id FROM internal")}
        self._unsettled = set(self._facts)
        # Some source's last poll left sessions unlisted (`Known.listing`).
        self._listing = False
        self._spool_seen: tuple[int, int] | None = None  # (inode, size) of the live spool file at the last ingest
        self._view = _View(self._facts, lambda: self._listing, self._spool_waits)
        for source in self.sources:
            source.attach(self._view)

    @property
    def host(self) -> str | None:
        """The host name every row carries: sync's, once configured, else the machine's hostname."""
        return self._host

    @host.setter
    def host(self, name: str | None) -> None:
        if name != self._host:
            self._unsettled.update(self._facts)  # every row names the host: build each again
        self._host = name

    # -- ingest ------------------------------------------------------------------------------------------

    def ingest(self, now: float | None = None) -> int:
        """Ingest every complete spooled line; returns how many new events were stored."""
        stored = 0
        for path in spool.spool_files(self.spool_dir):
            while True:
                chunk = spool.read_new(self.conn, path)
                if chunk is None:
                    break
                stored += self._ingest_chunk(chunk, time.time() if now is None else now)
        spool.rotate_and_retire(self.conn, self.spool_dir, now)
        self._spool_seen = self._live_spool()
        return stored

    def _live_spool(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.spool_dir / spool.SPOOL_FILE_NAME)
        except OSError:
            return None
        return st.st_ino, st.st_size

    def _spool_waits(self) -> bool:
        """A hook event arrived since the last ingest (the sources' `Known.urgent`): one stat."""
        return self._live_spool() != self._spool_seen

    def _ingest_chunk(self, chunk: spool.Chunk, now: float) -> int:
        changed: dict[str, Facts] = {}
        with store.transaction(self.conn):
            if chunk.fragments:
                store.bump_counter(self.conn, "spool.fragment", chunk.fragments)
            found = [item for line in chunk.lines if (item := self._ingest_line(line)) is not None]
            stored = self._store(found, changed, now)
            spool.commit_cursor(self.conn, chunk, now)
        # Only now, with the transaction committed, does the in-memory view move on.
        self._learn(changed)
        return stored

    def _ingest_line(self, line: bytes) -> tuple[str, Evidence] | None:
        if not line.strip():
            return None
        try:
            record = spool_record.decode(line)
        except msgspec.DecodeError:
            store.bump_counter(self.conn, "spool.malformed")
            return None
        if record.rejected is not None:
            store.bump_counter(self.conn, f"hook.rejected.{record.rejected}")
            return None
        event_id = record.id
        evidence = clients.evidence_from_record(record)
        if evidence is None or event_id is None:
            store.bump_counter(self.conn, "spool.unusable")
            return None
        return event_id, evidence

    def _store(self, items: list[tuple[str, Evidence]], changed: dict[str, Facts], now: float) -> int:
        """Store the evidence not stored yet, fold it into its sessions' facts and save those; returns how
        many pieces were new."""
        new = evidence_rows.store_new(self.conn, items, now)
        for evidence in new:
            key = session_key(evidence.provider, evidence.session_id)
            facts = changed.get(key) or self._facts.get(key) or Facts(evidence.provider, evidence.session_id)
            changed[key] = fold(facts, evidence)
        evidence_rows.save_facts(self.conn, changed, now)
        return len(new)

    def _learn(self, changed: dict[str, Facts]) -> None:
        """Take committed facts into the in-memory view; their sessions are decided again."""
        self._facts.update(changed)
        self._unsettled.update(changed)
        self._view.learn(changed)

    def poll_sources(self, now: float | None = None) -> int:
        """Poll every file and catalog source once; store what they found with their cursors."""
        now = time.time() if now is None else now
        stored = 0
        listed = False
        backlogs: set[str] = set()
        read, known = 0, 0
        for source in self.sources:
            try:
                batch = source.poll(self.conn, now)
            except Exception as exc:  # noqa: BLE001 - one broken source must not stop the others
                self.errors.note(self.conn, f"source {source.name}", exc, now)
                store.bump_counter(self.conn, f"source.failed.{source.name}")
                continue
            if batch.backlog is not None:
                backlogs.add(batch.backlog)
            if batch.progress is not None:
                read, known = read + batch.progress[0], known + batch.progress[1]
            changed: dict[str, Facts] = {}
            with store.transaction(self.conn):
                stored += self._store(batch.evidence, changed, now)
                batch.commit(self.conn)
                if batch.complete_listing is not None:
                    provider, keys = batch.complete_listing
                    arrangement.record_complete_listing(self.conn, provider, keys, now)
                    listed = True
                for key in batch.internal - self.internal:
                    self.conn.execute(
                        "INSERT OR IGNORE INTO internal (id, reason, at) VALUES (?, ?, ?)",
                        (key, source.name, now),
                    )
            self._learn(changed)
            self.internal |= batch.internal
        if listed:
            self.notify()  # a complete catalog listing may move sessions off the hidden list
        self.backlog = "listing" if "listing" in backlogs else "reading" if backlogs else None
        self._listing = "listing" in backlogs
        reading = f"{read:,} of {known:,}" if self.backlog is not None and known else ""
        if reading != self._reading:
            store.set_collector_value(self.conn, READING_KEY, reading)  # doctor and the panel's header say it
            self._reading = reading
        return stored

    # -- snapshot ----------------------------------------------------------------------------------------

    def snapshot(self, now: float | None = None) -> int:
        """Apply the rules at `now` to every session not settled; write the rows that changed. Returns that count."""
        now = time.time() if now is None else now
        offline_since = self.network.sample(now, has_network())
        if now < self._decided_at:
            self._unsettled.update(self._facts)  # the clock went back: settled only holds for later instants
        self._decided_at = now
        self._unsettled -= self.internal
        self._unsettled |= self._exited()
        unsettled = {key: self._facts[key] for key in self._unsettled}
        writers = self._writer_proofs(unsettled, now)
        updates: list[tuple[str, str, int, str, float]] = []
        moved: list[Transition] = []
        resting: list[str] = []  # settled rows, skipped from the next snapshot on once this one is stored
        for key, facts in unsettled.items():
            alive = is_alive(facts.pid, facts.pstart) if facts.pid is not None and not facts.ended else None
            terminal = _terminal_alive(facts)
            decision = decide(facts, now, alive, offline_since, writer=writers.get(key))
            session = build_session(
                facts, decision, host=self.host, alive=alive, writer=writers.get(key), shown=terminal
            )
            if session.open and facts.pid is not None:
                self._open.add(key)
            else:
                self._open.discard(key)
            data = _session_encoder.encode(session)
            if self._written.get(key) != data:
                updates.append((key, session.state, int(decision.listed), data.decode(), now))
                moved.append(
                    Transition(
                        self._states.get(key),
                        session,
                        listed=decision.listed,
                        task_reply=facts.task_reply,
                        acted_at=facts.acted_at,
                    )
                )
            if settled(facts, now) and writers.get(key) is not True:
                resting.append(key)
        if updates:
            with store.transaction(self.conn):
                self.conn.executemany(
                    "INSERT INTO snapshot (id, state, listed, data, updated) VALUES (?, ?, ?, ?, ?) "
                    "ON CONFLICT (id) DO UPDATE SET state = excluded.state, listed = excluded.listed, "
                    "data = excluded.data, updated = excluded.updated",
                    updates,
                )
                changes_log.record(self.conn, [t.session for t in moved if t.listed], now)  # `lunavect events`
            for key, state, _listed, text, _now in updates:
                self._written[key] = text.encode()
                self._states[key] = State(state)
            self.notify()
            self.transitions(moved)
        self._unsettled.difference_update(resting)
        return len(updates)

    def _exited(self) -> set[str]:
        """The resting rows that say their client is open whose process has exited since."""
        gone = set()
        for key in self._open - self._unsettled:
            facts = self._facts.get(key)
            if facts is not None and is_alive(*shown_by(facts)[:2]) is False:
                gone.add(key)
        return gone

    def _writer_proofs(self, facts: Mapping[str, Facts], now: float) -> dict[str, bool | None]:
        """Writer proofs (Codex) from the sources that give them, for the sessions that need one now."""
        proofs: dict[str, bool | None] = {}
        for source in self.sources:
            try:
                proofs.update(source.writer_proofs(facts, now))
            except Exception as exc:  # noqa: BLE001 - no proof is the ordinary freshness rule, never a crash
                self.errors.note(self.conn, f"writer proofs of {source.name}", exc, now)
        return proofs

    def probe_setup(self) -> None:
        """Record the setup report (hooks installed, clients found) every `setup_probe.PROBE_EVERY_S`."""
        clock = time.monotonic()
        if self._probed_at is not None and clock - self._probed_at < setup_probe.PROBE_EVERY_S:
            return
        self._probed_at = clock
        try:
            report = setup_probe.probe()
        except Exception as exc:  # noqa: BLE001 - an unreadable client setting must never stop the collector
            self.errors.note(self.conn, "the setup probe", exc)
            return
        if setup_report.record(self.conn, report):
            self.notify()

    def prune(self, now: float | None = None) -> int:
        """Forget events past the de-duplication window, at most once every `PRUNE_EVERY_S`."""
        now = time.time() if now is None else now
        # A clock set back (now before the last prune) prunes at once rather than waiting for it to catch up.
        if self._pruned_at is not None and 0 <= now - self._pruned_at < PRUNE_EVERY_S:
            return 0
        self._pruned_at = now
        with store.transaction(self.conn):
            pruned = store.prune_events(self.conn, now, since=self._pruned_cut)
        self._pruned_cut = now - store.DEDUP_WINDOW_S  # the next prune looks only at what was stored since
        return pruned

    @property
    def at_rest(self) -> bool:
        """True when no row can change without new evidence (every session `settled`) and the sources owe
        nothing: then only a notification, or the slow safety sweep, needs a tick (collector/loop.py)."""
        return not self._unsettled and self.backlog is None

    def tick(self, now: float | None = None, beat: bool = True, poll: bool = True) -> str | None:
        """One tick; returns what the sources left for the next ones (`backlog`): the caller ticks again soon.

        `beat` commits the tick's start (what `wait_caught_up` and `lunavect doctor` read); without it the
        start is committed only when BEAT_EVERY_S has passed since the last one. Without `poll` it takes the
        spool only (a hook event arriving between two whole reads), and polls no source.

        A store on a full disk fails the tick's commits: each rolled back whole, and the in-memory view moves
        only after a commit, so nothing is lost; the tick is noted and retried, never a crash (a collector that
        exited would be restarted by the next front end into the same failure, a crash loop)."""
        try:
            return self._tick(now, beat, poll)
        except sqlite3.OperationalError as exc:
            if getattr(exc, "sqlite_errorname", None) != "SQLITE_FULL":
                raise
            self._unsettled.update(self._facts)  # decide every row again once the disk has room
            self._view.forget_changes()  # and the sources look at every session again: a drained change is lost
            self.errors.note(self.conn, "the store (its disk is full)", exc, now)
            return None

    def _tick(self, now: float | None, beat: bool, poll: bool) -> str | None:
        started = time.time()
        self.ingest(now)
        # Hook events and freshness are published before any source is read (the guide, "How state is
        # determined"): counts expire and hooks show even when a transcript or app-server read is slow.
        self.snapshot(now)
        if not poll:  # only the spool (a hook event between two whole reads): the reading goes on after
            self._beat(started, beat)
            return self.backlog
        self.poll_sources(now)
        self.snapshot(now)
        self.probe_setup()
        self.prune(now)
        self._beat(started, beat)
        return self.backlog

    def _beat(self, started: float, beat: bool) -> None:
        # A front end that asked at time T sees its events once a tick that started after T has finished.
        if beat or self._beat_at is None or not 0 <= started - self._beat_at < BEAT_EVERY_S:
            store.set_collector_value(self.conn, "tick_started", repr(started))
            self._beat_at = started


def _nobody() -> None:
    return None


def _nobody_listens(_moved: list[Transition]) -> None:
    return None


class _View:
    """The sources' read-only view of what the collector knows (`sources.Known`).

    Each provider's facts are kept apart and handed over as a live read-only mapping, never copied: a source
    looks up the sessions it needs, and learns which ones changed (`changed`), so a poll's work follows what
    changed rather than every session ever stored."""

    def __init__(self, facts: dict[str, Facts], listing: Callable[[], bool], urgent: Callable[[], bool]) -> None:
        self._facts = facts
        self.listing = listing
        self.urgent = urgent
        self._by_provider: dict[str, dict[str, Facts]] = {}
        # The keys changed since each provider's last `changed` call (kept once a source asked for them).
        self._changed: dict[str, set[str]] = {}
        self.learn(facts)

    def learn(self, changed: Mapping[str, Facts]) -> None:
        for key, facts in changed.items():
            self._by_provider.setdefault(facts.provider, {})[key] = facts
            pending = self._changed.get(facts.provider)
            if pending is not None:
                pending.add(key)

    def forget_changes(self) -> None:
        """Every session counts as changed again (a commit failed after the sources drained their changes)."""
        self._changed.clear()

    def facts(self, provider: str) -> Mapping[str, Facts]:
        return MappingProxyType(self._by_provider.setdefault(provider, {}))

    def changed(self, provider: str) -> set[str]:
        if provider not in self._changed:
            self._changed[provider] = set()
            return set(self._by_provider.get(provider, {}))  # the first call: every session
        found, self._changed[provider] = self._changed[provider], set()
        return found

    def live(self, key: str) -> bool:
        facts = self._facts.get(key)
        return facts is not None and _needs_liveness(facts)


def _terminal_alive(facts: Facts) -> bool | None:
    """The liveness of the process that shows the session when it is not the one that runs it (a Codex TUI
    whose thread the daemon runs: `presence`); None when there is none or the session ended."""
    if facts.terminal_pid is None or facts.ended:
        return None
    return is_alive(facts.terminal_pid, facts.terminal_pstart)


def _needs_liveness(facts: Facts) -> bool:
    """Only phases that a dead process would make false are worth a process lookup."""
    return facts.phase in LIVE_PHASES and not facts.ended
