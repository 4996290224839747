"""Was this Claude runtime started by another agent's command? Bounded process ancestry, nothing more.

A Claude Code started by a command inside another Claude Code or Codex task (`claude -p` in a Bash tool
call, say) is that task's tool, not a session of its own person. Its ancestry shows it: a Claude runtime,
then one or more command processes (the shell running the tool call), then another agent runtime. Only
executable names, parent pids and start times are read, never arguments or environments. An ancestry that
cannot be read to its end (a parent that vanished or is hidden, a chain deeper than the bound) proves
nothing, and no origin is invented from it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass

import psutil

AGENT_RUNTIMES = ("claude", "codex")
# Deep enough for runtime → shell → wrapper → shell → runtime; bounded so no table can loop.
MAX_ANCESTRY = 24


@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    name: str
    exe_name: str = ""
    started: float | None = None

    @property
    def runtime(self) -> str | None:
        """Which agent runtime this process is ("claude", "codex"), if any."""
        for candidate in (self.name, self.exe_name):
            if candidate in AGENT_RUNTIMES:
                return candidate
        return None


@dataclass(frozen=True)
class Origin:
    """The agent runtime whose command started a Claude runtime."""

    runtime: str
    pid: int


def launched_by_agent(table: Mapping[int, Proc], pid: int, max_depth: int = MAX_ANCESTRY) -> Origin | None:
    """The agent whose command started Claude runtime `pid`, or None when the ancestry does not prove one.

    A runtime directly under another runtime (no command between) is that runtime's own helper or a
    declared background session, not a tool call's child.
    """
    proc = table.get(pid)
    if proc is None or proc.runtime != "claude":
        return None
    commands = 0
    current = proc.ppid
    seen = {pid}
    for _ in range(max_depth):
        if current <= 1 or current in seen:
            return None  # reached the system's root: no agent above
        seen.add(current)
        parent = table.get(current)
        if parent is None:
            return None  # a parent that cannot be seen: truncated ancestry invents no origin
        if parent.runtime is not None:
            return Origin(parent.runtime, parent.pid) if commands else None
        commands += 1
        current = parent.ppid
    return None


# -- reading the real process table ---------------------------------------------------------------------


_boot_time: float | None = None
_clock_ticks: int | None = None


def _linux_clock() -> tuple[float, int] | None:
    global _boot_time, _clock_ticks
    if _boot_time is None or _clock_ticks is None:
        try:
            _boot_time = psutil.boot_time()
            _clock_ticks = os.sysconf("SC_CLK_TCK")
        except (psutil.Error, OSError, ValueError):
            return None
    return _boot_time, _clock_ticks


def _linux_stat(pid: int) -> tuple[str, int, int] | None:
    """(comm, ppid, starttime in clock ticks) from /proc/<pid>/stat."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read().decode("utf-8", "replace")
    except OSError:
        return None
    open_paren, close_paren = data.find("("), data.rfind(")")
    fields = data[close_paren + 2 :].split()
    if open_paren < 0 or close_paren < 0 or len(fields) < 20:
        return None
    try:
        return data[open_paren + 1 : close_paren], int(fields[1]), int(fields[19])
    except ValueError:
        return None


def start_ticks(pid: int) -> str | None:
    """A Linux process's start as Claude Code writes it in its catalog's `procStart`: clock ticks since
    boot, as a decimal string. None elsewhere or when the process is gone."""
    stat = _linux_stat(pid) if sys.platform.startswith("linux") else None
    return str(stat[2]) if stat else None


def _linux_proc(pid: int) -> Proc | None:
    stat = _linux_stat(pid)
    if stat is None:
        return None
    comm, ppid, ticks = stat
    try:
        exe_name = os.path.basename(os.readlink(f"/proc/{pid}/exe").removesuffix(" (deleted)"))
    except OSError:
        exe_name = ""
    clock = _linux_clock()
    started = clock[0] + ticks / clock[1] if clock else None
    return Proc(pid=pid, ppid=ppid, name=comm, exe_name=exe_name, started=started)


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
    """One live process, or None."""
    if sys.platform.startswith("linux"):
        return _linux_proc(pid)
    try:
        return _psutil_proc(psutil.Process(pid))
    except (psutil.Error, OSError):
        return None


def process_table() -> dict[int, Proc]:
    """Every visible process: on Linux straight from /proc, elsewhere through psutil."""
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
