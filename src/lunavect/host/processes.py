"""Process facts, in one place: the process type, the table, "same process", ancestry and `procStart`.

Sessions are tied to the agent process that runs them, and a pid alone is no identity: the system reuses
pids, so a process is the same one only when its start time agrees with the one recorded (by the hook shim,
or by Claude Code's catalog as `procStart`). Finding where a session lives, whether its agent still runs and
whether another agent's command started it all walk the same parents.

The rules take a `ProcessTable` (or a plain {pid: Proc} mapping), so tests hand them an invented table.
Two real ones: `process_table()`, a cheap snapshot (straight from /proc on Linux, through the shim's
readers) that the collector takes every tick, and `LiveProcesses`, a live view through psutil that also
knows terminals, zombies, working folders and sockets, for returning to a task. Only executable names,
parents, terminals, start times, working folders and listening socket paths are read: never arguments,
environments or memory.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Protocol

import psutil

from lunavect.core.clients import by_process
from lunavect.shim import procfacts
from lunavect.shim.procfacts import MAX_ANCESTRY

__all__ = [
    "MAX_ANCESTRY",
    "START_TOLERANCE_S",
    "LiveProcesses",
    "Proc",
    "ProcessTable",
    "ancestry",
    "is_alive",
    "is_same_process",
    "parse_proc_start",
    "proc_start_matches",
    "process",
    "process_table",
    "start_ticks",
    "terminal",
]

# How far two readings of one process's start (in seconds) may differ: the shim rounds to 1/100 s, psutil
# and /proc compute from the same kernel clock, `ps` lstart (macOS, and Claude Code's catalog there) has a
# one-second resolution; a reused pid starts at another time entirely. A start in clock ticks since boot
# (Claude Code's catalog on Linux) is the kernel's own number and compares exactly.
START_TOLERANCE_S = 1.0


@dataclass(frozen=True)
class Proc:
    """One process, as far as lunavect needs it."""

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
        """The id of the client whose runtime this process is ("claude", "codex"), if any: by process or
        executable name, the names the hook shim looks for (`core.clients`)."""
        for candidate in (self.name, self.exe_name):
            client = by_process(candidate) if candidate else None
            if client is not None:
                return client.id
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


# -- ancestry and identity ----------------------------------------------------------------------------------


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


def _same_start(live: float | None, recorded: float | None) -> bool:
    return live is None or recorded is None or abs(live - recorded) <= START_TOLERANCE_S


def is_same_process(table: ProcessTable, pid: int, started: float | None) -> Proc | None:
    """The live process `pid` if it is the one that started at `started` (when known), else None."""
    proc = table.get(pid)
    if proc is None or proc.zombie or not _same_start(proc.started, started):
        return None
    return proc


def is_alive(pid: int | None, start_time: float | None) -> bool | None:
    """Is the process the shim recorded still the same live process? None when that cannot be known."""
    if pid is None:
        return None
    try:
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            return False
        created = proc.create_time()
    except psutil.NoSuchProcess:
        return False
    except (psutil.AccessDenied, OSError):
        return None
    return _same_start(created, start_time)


# -- procStart: a start as Claude Code's catalog writes it ---------------------------------------------------


def start_ticks(pid: int) -> str | None:
    """A Linux process's start as Claude Code writes it in its catalog's `procStart`: clock ticks since
    boot, as a decimal string. None elsewhere or when the process is gone."""
    stat = procfacts.linux_stat(pid) if sys.platform.startswith("linux") else None
    return str(stat[3]) if stat else None


def parse_proc_start(value: object, boot_time: float | None = None) -> float | None:
    """The epoch start time a catalog's `procStart` names.

    Linux writes clock ticks since boot (a digit string); macOS writes `ps`'s lstart ("Thu Jun 11 21:53:36
    2026"). Anything else is unknown, and an unknown start never proves a pid is the same process.
    """
    if not isinstance(value, str) or not value:
        return None
    if value.isdigit():
        return procfacts.ticks_to_epoch(int(value), boot_time)
    return procfacts.lstart_to_epoch(value)


def proc_start_matches(recorded: str | None, pid: int, proc: Proc | None) -> bool | None:
    """Is the live process `proc` (pid `pid`) the one whose start the catalog recorded? None when the
    recorded start cannot be compared (missing, unreadable, or the live start is unknown)."""
    if proc is None:
        return False
    if not recorded:
        return None
    if recorded.isdigit():
        live = start_ticks(pid)
        return None if live is None else live == recorded
    started = procfacts.lstart_to_epoch(recorded)
    if started is None or proc.started is None:
        return None
    return _same_start(proc.started, started)


# -- the real tables --------------------------------------------------------------------------------------


def _linux_proc(pid: int) -> Proc | None:
    stat = procfacts.linux_stat(pid)
    if stat is None:
        return None
    comm, ppid, _tty_nr, ticks = stat
    exe_name = procfacts.linux_exe_name(pid).removesuffix(" (deleted)")
    return Proc(pid=pid, ppid=ppid, name=comm, exe_name=exe_name, started=procfacts.linux_started(ticks))


def _psutil_proc(proc: psutil.Process) -> Proc | None:
    try:
        with proc.oneshot():
            try:
                exe_name = os.path.basename(proc.exe() or "")
            except (psutil.Error, OSError):
                exe_name = ""
            # Not psutil's name(): it reads the arguments to complete a long name. The executable's suffices.
            return Proc(pid=proc.pid, ppid=proc.ppid(), name=exe_name, exe_name=exe_name, started=proc.create_time())
    except (psutil.Error, OSError):
        return None


def process(pid: int) -> Proc | None:
    """One live process (terminal and zombie flag left unread), or None."""
    if sys.platform.startswith("linux"):
        return _linux_proc(pid)
    try:
        return _psutil_proc(psutil.Process(pid))
    except (psutil.Error, OSError):
        return None


def process_table() -> dict[int, Proc]:
    """Every visible process (terminal and zombie flag left unread): on Linux straight from /proc,
    elsewhere through psutil."""
    table: dict[int, Proc] = {}
    if sys.platform.startswith("linux"):
        try:
            names = os.listdir("/proc")
        except OSError:
            return table
        for name in names:
            if name.isdigit():
                proc = _linux_proc(int(name))
                if proc is not None:
                    table[proc.pid] = proc
        return table
    for handle in psutil.process_iter():
        proc = _psutil_proc(handle)
        if proc is not None:
            table[proc.pid] = proc
    return table


def terminal(pid: int) -> str | None:
    """The process's terminal (for returning to it), from its standard streams' targets."""
    if not os.path.isdir("/proc"):
        try:
            return psutil.Process(pid).terminal() or None
        except (psutil.Error, OSError):
            return None
    return procfacts.linux_tty(pid)


def _forget_terminal_names() -> None:
    """psutil names a process's terminal from a map of the devices it reads once per process (its
    `get_terminal_map` is memoized): in a process that runs for long (the collector, whose notifier opens a
    session when its notification is clicked, the panel, the web server), a terminal opened since would have no
    name, and its session would seem to run in no terminal at all. Forgotten, the map is read again."""
    try:
        from psutil import _psposix
    except ImportError:  # not a POSIX system: psutil names terminals otherwise there
        return
    clear = getattr(getattr(_psposix, "get_terminal_map", None), "cache_clear", None)
    if callable(clear):
        clear()


class LiveProcesses:
    """The real process table, live, through psutil: with terminals, zombies, folders and sockets. Each table
    reads the terminals' names afresh (`_forget_terminal_names`); one is made per action or tick."""

    def __init__(self) -> None:
        _forget_terminal_names()

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
