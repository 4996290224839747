"""Was this agent runtime started by another agent's command? Bounded process ancestry, nothing more.

A Claude Code started by a command inside another Claude Code or Codex task (`claude -p` in a Bash tool
call, say) is that task's tool, not a session of its own person. Its ancestry shows it: a Claude runtime,
then one or more command processes (the shell running the tool call), then another agent runtime. Only
executable names, parent pids and start times are read, never arguments or environments. An ancestry that
cannot be read to its end (a parent that vanished or is hidden, a chain deeper than the bound) proves
nothing, and no origin is invented from it.

Its processes, their walk and its bound are host/processes.py's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from lunavect.host.processes import Proc, ancestry

__all__ = ["Origin", "launched_by_agent"]


@dataclass(frozen=True)
class Origin:
    """The agent runtime whose command started another one (`runtime`: that client's id)."""

    runtime: str
    pid: int


def launched_by_agent(table: Mapping[int, Proc], pid: int) -> Origin | None:
    """The agent whose command started the agent runtime `pid` (a Claude runtime, as `claude.launches` asks),
    or None when the ancestry does not prove one.

    A runtime directly under another runtime (no command between) is that runtime's own helper or a
    declared background session, not a tool call's child. A chain that ends before an agent runtime (the
    system's root, a parent that cannot be seen, a loop, a chain longer than `ancestry` reads) invents no
    origin.
    """
    proc = table.get(pid)
    if proc is None or proc.runtime is None:
        return None
    parents = ancestry(table, pid)[1:]
    for commands, parent in enumerate(parents):
        if parent.runtime is not None:
            return Origin(parent.runtime, parent.pid) if commands else None
    return None
