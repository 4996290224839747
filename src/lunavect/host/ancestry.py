"""Was this Claude runtime started by another agent's command? Bounded process ancestry, nothing more.

A Claude Code started by a command inside another Claude Code or Codex task (`claude -p` in a Bash tool
call, say) is that task's tool, not a session of its own person. Its ancestry shows it: a Claude runtime,
then one or more command processes (the shell running the tool call), then another agent runtime. Only
executable names, parent pids and start times are read, never arguments or environments. An ancestry that
cannot be read to its end (a parent that vanished or is hidden, a chain deeper than the bound) proves
nothing, and no origin is invented from it.

Its processes are host/proctable.py's `Proc` (terminal and zombie flag left unread) and its walk is
proctable's `ancestry`; proctable's `LiveProcesses` is the fuller view that finding a terminal needs.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass

import psutil

from lunavect.host.proctable import AGENT_RUNTIMES, Proc, ancestry
from lunavect.shim import procfacts

__all__ = [
    "AGENT_RUNTIMES",
    "MAX_ANCESTRY",
    "Origin",
    "Proc",
    "launched_by_agent",
    "process",
    "process_table",
    "start_ticks",
]

# Deep enough for runtime → shell → wrapper → shell → runtime; bounded so no table can loop.
MAX_ANCESTRY = 24


@dataclass(frozen=True)
class Origin:
    """The agent runtime whose command started a Claude runtime."""

    runtime: str
    pid: int


def launched_by_agent(table: Mapping[int, Proc], pid: int, max_depth: int = MAX_ANCESTRY) -> Origin | None:
    """The agent whose command started Claude runtime `pid`, or None when the ancestry does not prove one.

    A runtime directly under another runtime (no command between) is that runtime's own helper or a
    declared background session, not a tool call's child. A chain that ends before an agent runtime (the
    system's root, a parent that cannot be seen, a loop, more than `max_depth` parents) invents no origin.
    """
    proc = table.get(pid)
    if proc is None or proc.runtime != "claude":
        return None
    parents = ancestry(table, pid, limit=max_depth + 1)[1:]
    for commands, parent in enumerate(parents):
        if parent.runtime is not None:
            return Origin(parent.runtime, parent.pid) if commands else None
    return None


# -- reading the real process table ---------------------------------------------------------------------
# On Linux straight from /proc, through the hook shim's readers (one parser of /proc/<pid>/stat); elsewhere
# through psutil.


def start_ticks(pid: int) -> str | None:
    """A Linux process's start as Claude Code writes it in its catalog's `procStart`: clock ticks since
    boot, as a decimal string. None elsewhere or when the process is gone."""
    stat = procfacts.linux_stat(pid) if sys.platform.startswith("linux") else None
    return str(stat[3]) if stat else None


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
