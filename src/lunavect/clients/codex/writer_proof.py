"""The writer proof for Codex sessions: is Codex still writing this session's exact rollout?

An unfinished Codex response goes stale after 120 s without fresh evidence, unless a Codex process still has
that rollout open for writing (the guide, "Codex log freshness"). Checks are batched: only sessions whose
evidence nears the limit are looked at, all in one pass over the Codex processes, and a result holds for ten
seconds, kept apart from the evidence's own times. A writer missed by one process snapshot keeps its ownership;
the second miss retires it.

Codex processes are recognised by their executable only: a native `codex`, or the native executable a launcher
script was seen to run (learned from the app-server, forgotten when either file changes).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from lunavect.clients.codex.appserver import NativeExecutable
from lunavect.core.model import State
from lunavect.core.rules import Facts, event_authority_s
from lunavect.host.writers import FileId, file_id, processes_by_executable, reconcile_ownership, scan_writers

HOLD_S = 10.0
# Start checking this long before the freshness limit, so the proof is there when the limit passes.
LEAD_S = 30.0
CODEX_NAMES = frozenset({"codex"})
_UNFINISHED = frozenset({State.WORKING, State.COMPACTING, State.PERMISSION, State.INPUT})


@dataclass
class _Held:
    at: float
    result: bool | None


@dataclass
class CodexWriterProof:
    """Writer proofs for Codex sessions, batched and held."""

    native: Callable[[], NativeExecutable | None] = lambda: None
    # Executable file names that are Codex itself.
    names: frozenset[str] = CODEX_NAMES
    held: dict[str, _Held] = field(default_factory=dict)
    owned: set[str] = field(default_factory=set)
    misses: dict[str, int] = field(default_factory=dict)
    checks: int = 0  # batched process scans so far (tests read it)

    def needs_proof(self, facts: Facts, now: float) -> bool:
        """An unfinished Codex response whose evidence nears (or passed) the freshness limit."""
        if facts.provider != "codex" or facts.ended or not facts.transcript or facts.phase not in _UNFINISHED:
            return False
        if facts.phase == State.INPUT and facts.input_reason == "question":
            return False  # a closing question is a finished reply
        confirmed = facts.confirmed_at if facts.confirmed_at is not None else facts.last_event_at
        if confirmed is None:
            return False
        limit = event_authority_s(facts.provider)
        unconfirmed = facts.unconfirmed_at is not None and facts.unconfirmed_at >= confirmed
        return unconfirmed or now - confirmed >= limit - LEAD_S

    def proofs(self, facts_by_key: Mapping[str, Facts], now: float) -> dict[str, bool | None]:
        """The writer proof of every session that needs one now (others are absent: unchecked)."""
        wanted = {
            key: facts.transcript
            for key, facts in facts_by_key.items()
            if facts.transcript and self.needs_proof(facts, now)
        }
        due = {path for path in wanted.values() if path not in self.held or now - self.held[path].at >= HOLD_S}
        if due:
            self._check(sorted(due), now)
        for path in list(self.held):
            if path not in wanted.values() and now - self.held[path].at >= HOLD_S:
                del self.held[path]
        return {key: self.held[path].result for key, path in wanted.items() if path in self.held}

    def _check(self, paths: list[str], now: float) -> None:
        targets: dict[str, FileId] = {}
        for path in paths:
            ident = file_id(path)
            if ident is not None:
                targets[path] = ident
        native = self.native()
        executables = {native.native} if native is not None and native.valid() else set()
        pids = processes_by_executable(set(self.names), executables)
        scan = scan_writers(pids, targets.values())
        self.checks += 1
        observed = {path for path, ident in targets.items() if scan.proof(ident) is True}
        checked = set(paths)
        misses = {path: count for path, count in self.misses.items() if path in checked}
        owned = reconcile_ownership(self.owned & checked, observed, misses)
        self.misses = {path: count for path, count in self.misses.items() if path not in checked} | misses
        self.owned = (self.owned - checked) | owned
        for path in paths:
            if path in owned:
                result: bool | None = True
            elif path not in targets:
                result = False  # the rollout is gone: nobody writes it
            else:
                result = scan.proof(targets[path])
            self.held[path] = _Held(now, result)
