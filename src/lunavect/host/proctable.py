"""A read-only view of the machine's processes, narrow enough to fake in a unit test.

Finding where a session lives means walking parent chains and asking each process for its terminal. The
rules that do so take a `ProcessTable`, so tests hand them an invented table instead of the real one.
Only executable names, parents, terminals, start times, working folders and listening socket paths are
read: never arguments, environments or memory.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Protocol

import psutil

from lunavect.shim.procfacts import CLIENT_PROCESS_NAMES

# Deep enough for shell → wrapper → runtime chains; bounded so a pathological table cannot loop.
MAX_ANCESTRY = 32
# The agents' own runtimes, by process or executable name: the names the hook shim looks for.
AGENT_RUNTIMES = tuple(name for names in CLIENT_PROCESS_NAMES.values() for name in names)
# psutil's start time and a recorded one (the hook shim's, a catalog's) come from the same kernel clock.
START_TOLERANCE_S = 1.0


@dataclass(frozen=True)
class Proc:
    """One process, as far as finding a terminal needs it."""

    pid: int
    ppid: int
    name: str
    exe_name: str = ""
    tty: str | None = None
    started: float | None = None
    zombie: bool = False

    def named(self, *names: str) -> bool:
        """True when the process's name or executable's file name is one of `names`."""
        return self.name in names or (bool(self.exe_name) and self.exe_name in names)

    @property
    def runtime(self) -> str | None:
        """Which agent runtime this process is ("claude", "codex"), if any."""
        for candidate in (self.name, self.exe_name):
            if candidate in AGENT_RUNTIMES:
                return candidate
        return None


class ProcessTable(Protocol):
    def get(self, pid: int) -> Proc | None:
        """The process, or None when it does not exist (or cannot be seen)."""
        ...

    def processes(self) -> Iterator[Proc]:
        """Every visible process."""
        ...

    def cwd(self, pid: int) -> str | None:
        """The process's working folder, or None when unknown."""
        ...

    def unix_sockets(self, pid: int) -> list[str]:
        """Paths of the Unix sockets the process has open (a server's listening socket among them)."""
        ...


def ancestry(table: ProcessTable | Mapping[int, Proc], pid: int, limit: int = MAX_ANCESTRY) -> list[Proc]:
    """The process and its parents, nearest first, up to but excluding pid 1, at most `limit` of them.

    The chain ends early at a parent that cannot be seen or at a loop; a plain {pid: Proc} mapping serves
    as a table too."""
    chain: list[Proc] = []
    seen: set[int] = set()
    current: int | None = pid
    while current is not None and current > 1 and current not in seen and len(chain) < limit:
        seen.add(current)
        proc = table.get(current)
        if proc is None:
            break
        chain.append(proc)
        current = proc.ppid
    return chain


def is_same_process(table: ProcessTable, pid: int, started: float | None) -> Proc | None:
    """The live process `pid` if it is the one that started at `started` (when known), else None.

    A pid alone is no identity: the system reuses pids, so a recorded start time decides.
    """
    proc = table.get(pid)
    if proc is None or proc.zombie:
        return None
    if started is not None and proc.started is not None and abs(proc.started - started) > START_TOLERANCE_S:
        return None
    return proc


class LiveProcesses:
    """The real process table, through psutil."""

    def get(self, pid: int) -> Proc | None:
        try:
            proc = psutil.Process(pid)
            with proc.oneshot():
                return self._describe(proc)
        except (psutil.Error, OSError):
            return None

    def processes(self) -> Iterator[Proc]:
        for proc in psutil.process_iter():
            try:
                with proc.oneshot():
                    yield self._describe(proc)
            except (psutil.Error, OSError):
                continue

    def cwd(self, pid: int) -> str | None:
        try:
            return psutil.Process(pid).cwd() or None
        except (psutil.Error, OSError):
            return None

    def unix_sockets(self, pid: int) -> list[str]:
        try:
            conns = psutil.Process(pid).net_connections(kind="unix")
        except (psutil.Error, OSError):
            return []
        found: list[str] = []
        for conn in conns:
            path = conn.laddr
            if isinstance(path, str) and path:
                found.append("@" + path[1:] if path.startswith("\0") else path)
        return found

    @staticmethod
    def _describe(proc: psutil.Process) -> Proc:
        try:
            exe_name = os.path.basename(proc.exe() or "")
        except (psutil.Error, OSError):
            exe_name = ""
        try:
            tty = proc.terminal()
        except (psutil.Error, OSError):
            tty = None
        try:
            zombie = proc.status() == psutil.STATUS_ZOMBIE
        except (psutil.Error, OSError):
            zombie = False
        return Proc(
            pid=proc.pid,
            ppid=proc.ppid(),
            name=proc.name(),
            exe_name=exe_name,
            tty=tty or None,
            started=proc.create_time(),
            zombie=zombie,
        )
