"""Which Claude runtimes were started by another agent's command, and which sessions they wrote.

A live catalog entry names its pid, so its runtime's ancestry answers directly (host/ancestry.py). A run
the catalog does not name (older clients' `claude -p`) is tied to its transcript by what both record:
the folder it runs in and when it started. The writer of a new transcript is the Claude process in that
folder that started last before the transcript's first record, provided no other process started close
to it: an ambiguous match invents no origin. Only Claude processes are looked at, and of them only the
executable, parent, start time and (for those the catalog does not name) working folder.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

import psutil

from lunavect.host.ancestry import Origin, launched_by_agent
from lunavect.host.processes import Proc

MATCH_WINDOW_S = 30.0
AMBIGUOUS_S = 2.0
# How long a Claude process seen once is remembered for a match.
REMEMBER_PROCESS_S = 300.0


@dataclass
class _Seen:
    proc: Proc
    origin: Origin | None
    catalogued: bool
    last_seen: float
    cwd: str | None = None


def _cwd(pid: int) -> str | None:
    try:
        return psutil.Process(pid).cwd() or None
    except (psutil.Error, OSError):
        return None


def _real(path: str | None) -> str | None:
    return os.path.realpath(path) if path else None


class LaunchTracker:
    """Claude processes seen in recent scans: facts about processes, never about records; bounded in time."""

    def __init__(self, processes: Callable[[], dict[int, Proc]], cwd: Callable[[int], str | None] = _cwd) -> None:
        self._processes = processes
        self._cwd = cwd
        self._seen: dict[int, _Seen] = {}
        self._matched: set[int] = set()
        # Catalog processes already asked about, by (pid, start): one the scan does not recognise as a
        # runtime is asked about once, not on every tick.
        self._asked: dict[tuple[int, float | None], float] = {}

    def knows(self, proc: Proc) -> bool:
        seen = self._seen.get(proc.pid)
        return (seen is not None and seen.proc.started == proc.started) or (proc.pid, proc.started) in self._asked

    def scan(self, now: float, catalogued: list[Proc]) -> None:
        """Look at every Claude process once: its ancestry decides whether its session is a tool's."""
        table = self._processes()
        for proc in catalogued:
            self._asked[(proc.pid, proc.started)] = now
        catalog_pids = {proc.pid for proc in catalogued}
        for proc in table.values():
            if proc.runtime != "claude":
                continue
            seen = self._seen.get(proc.pid)
            if seen is not None and seen.proc.started == proc.started:
                seen.last_seen = now
                seen.catalogued = seen.catalogued or proc.pid in catalog_pids
                continue
            in_catalog = proc.pid in catalog_pids
            cwd = None if in_catalog else self._cwd(proc.pid)
            self._seen[proc.pid] = _Seen(proc, launched_by_agent(table, proc.pid), in_catalog, now, cwd)
            self._matched.discard(proc.pid)
        for pid in [pid for pid, seen in self._seen.items() if now - seen.last_seen > REMEMBER_PROCESS_S]:
            del self._seen[pid]
            self._matched.discard(pid)
        for key in [key for key, asked in self._asked.items() if now - asked > REMEMBER_PROCESS_S]:
            del self._asked[key]

    def origin(self, proc: Proc) -> Origin | None:
        """The agent whose command started this Claude runtime, when a scan proved one."""
        seen = self._seen.get(proc.pid)
        return seen.origin if seen is not None and seen.proc.started == proc.started else None

    def wrote_by_tool(self, first_at: float | None, cwd: str | None) -> bool:
        """Was a new transcript (first record at `first_at`, in folder `cwd`) written by a tool-launched run?
        Each process writes one such transcript, so a matched process is never matched again."""
        folder = _real(cwd)
        if first_at is None or folder is None:
            return False
        candidates = sorted(
            (
                seen
                for pid, seen in self._seen.items()
                if not seen.catalogued
                and pid not in self._matched
                and seen.proc.started is not None
                and first_at - MATCH_WINDOW_S <= seen.proc.started <= first_at + 1.0
                and _real(seen.cwd) == folder
            ),
            key=lambda seen: seen.proc.started or 0.0,
            reverse=True,
        )
        if not candidates:
            return False
        nearest = candidates[0]
        if len(candidates) > 1 and (nearest.proc.started or 0.0) - (candidates[1].proc.started or 0.0) < AMBIGUOUS_S:
            return False
        self._matched.add(nearest.proc.pid)
        return nearest.origin is not None
