"""The Codex TUI that shows a thread Codex's managed app-server daemon runs.

Codex 0.169.0 hands interactive threads to its managed daemon (`codex app-server --managed-daemon`), which runs
the turns and their hooks and outlives the TUI: the hooks record the daemon's pid, and the daemon keeps a quit
thread loaded for a minute or more, so neither says when the person quit. The TUI itself is a native `codex`
process in a terminal, working in the thread's folder. For each thread the daemon runs whose terminal is not
known yet, this finds that process when the folder rule of returning to a task allows it: exactly one such TUI
and exactly one such thread in one folder (several sessions in one folder are never interchangeable); a process
another session already names (its own runner, or its terminal) is no candidate. The rules then take that
process as the one that shows the session (`lunavect.core.rules.presence`). Only executable names, terminals,
start times and working folders are read, never arguments or environments.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from lunavect.core import bounded_json
from lunavect.files.folders import resolved
from lunavect.host.processes import Proc

# Where Codex's managed daemon records its process (`{"pid": N, "processIdentity": {...}, ...}`).
DAEMON_PID = Path("app-server-daemon") / "daemon.pid"
_MAX_PID_FILE = 64 * 1024
# The runtime a TUI runs as (the launcher is `node`; the native executable is this).
RUNTIME = "codex"


@dataclass(frozen=True)
class Terminal:
    """A Codex TUI in a terminal: its process, start, terminal device and working folder (resolved)."""

    pid: int
    started: float | None
    tty: str
    folder: str


def daemon_pid(codex_home: Path) -> int | None:
    """The pid Codex's managed daemon recorded for itself, or None when there is none (or it is unreadable)."""
    try:
        with open(codex_home / DAEMON_PID, "rb") as handle:
            raw = handle.read(_MAX_PID_FILE + 1)
    except OSError:
        return None
    if len(raw) > _MAX_PID_FILE:
        return None
    try:
        data = bounded_json.loads(raw)
    except (TypeError, ValueError):
        return None
    pid = data.get("pid") if isinstance(data, dict) else None
    return pid if isinstance(pid, int) and not isinstance(pid, bool) and pid > 1 else None


def terminals(
    table: Iterable[Proc],
    claimed: set[int],
    tty_of: Callable[[int], str | None],
    cwd_of: Callable[[int], str | None],
) -> list[Terminal]:
    """The Codex TUIs running now: native `codex` processes on a terminal that no session names already."""
    found = []
    for proc in table:
        if proc.zombie or proc.pid in claimed or not proc.named(RUNTIME):
            continue
        tty = tty_of(proc.pid)
        folder = resolved(cwd_of(proc.pid)) if tty else None
        if tty and folder:
            found.append(Terminal(proc.pid, proc.started, tty, folder))
    return found


def match(threads: Mapping[str, str | None], running: Iterable[Terminal]) -> dict[str, Terminal]:
    """Which TUI shows which thread (`threads`: the session keys that need one, with their folders, resolved):
    only where one folder holds exactly one of each."""
    by_folder: dict[str, list[Terminal]] = {}
    for terminal in running:
        by_folder.setdefault(terminal.folder, []).append(terminal)
    keys_by_folder: dict[str, list[str]] = {}
    for key, folder in threads.items():
        if folder:
            keys_by_folder.setdefault(folder, []).append(key)
    return {
        keys[0]: by_folder[folder][0]
        for folder, keys in keys_by_folder.items()
        if len(keys) == 1 and len(by_folder.get(folder, ())) == 1
    }
