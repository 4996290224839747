"""The editor windows that have a companion, as their registrations in lunavect's data folder say.

Each window's companion writes `editors/<id>.json` (its terminals' shell process ids and names, its socket)
and removes it when the window closes, leaving `editors/<id>.closed` (the same process ids, and when it
closed): a terminal outlives its window in code-server and in a VS Code whose terminals persist, and an
agent still running there must be told from one that no companion ever saw.

Every value comes from another program, so it is checked here once, where it enters: ids by pattern,
process ids and times within bounds, names cut and stripped of control characters, lists to a length; a
file that fails is skipped (and counted), never raised.
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

from lunavect import paths
from lunavect.core import clients
from lunavect.files import ownership
from lunavect.host.processes import Proc

FOLDER_NAME = "editors"
REGISTRATION_SUFFIX = ".json"
CLOSED_SUFFIX = ".closed"
PROTOCOL = 1

_ID = re.compile(r"[0-9a-f]{12}")
MAX_FILE_BYTES = 256 * 1024
MAX_TERMINALS = 512
MAX_NAME = 80
MAX_PID = 4_194_304
# How far a process's start and a registration's time may disagree (two clocks read a moment apart).
START_SLACK_S = 1.0
# A closed window's record is kept while one of its terminals may still run; after this long it is old.
CLOSED_KEPT_S = 7 * 24 * 3600


@dataclass(frozen=True)
class Terminal:
    pid: int
    name: str


@dataclass(frozen=True)
class Window:
    """One open editor window, as its companion registered it."""

    id: str
    socket: Path
    host_pid: int  # the window's extension host, where the companion runs
    editor_pid: int | None  # its parent: the editor process, above every terminal's pty host
    started: float  # epoch seconds
    updated: float  # when the registration was last written (epoch seconds)
    app: str  # the editor's own name ("Visual Studio Code", "code-server", ...)
    ui: str  # "desktop" or "web"
    companion: str
    terminals: tuple[Terminal, ...]
    active: int | None
    panels: frozenset[str]  # providers whose own editor extension is installed there

    @property
    def editor(self) -> str:
        """Which installable editor this is (`lunavect editors install` takes it)."""
        return "code-server" if "code-server" in self.app.lower() else "vscode"

    def terminal(self, pid: int) -> Terminal | None:
        return next((t for t in self.terminals if t.pid == pid), None)

    def holds(self, proc: Proc) -> bool:
        """Is `proc` the shell of one of this window's terminals? A process that started after the window
        last wrote its registration only has a pid the system reused (the window ended without cleaning up)."""
        if self.terminal(proc.pid) is None:
            return False
        return proc.started is None or proc.started <= self.updated + START_SLACK_S


@dataclass(frozen=True)
class ClosedWindow:
    id: str
    app: str
    closed: float
    editor_pid: int | None
    terminals: tuple[Terminal, ...]


@dataclass
class Registrations:
    windows: list[Window]
    closed: list[ClosedWindow]
    skipped: int = 0


def folder() -> Path:
    return paths.data_dir() / FOLDER_NAME


def _pid(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and 1 < value <= MAX_PID else None


def _name(value: object) -> str:
    if not isinstance(value, str):
        return ""
    return "".join(c if c.isprintable() else " " for c in value[:MAX_NAME])


def _time_ms(value: object, now: float) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 < value <= (now + 86400) * 1000:
        return float(value) / 1000
    return None


def _terminals(value: object) -> tuple[Terminal, ...]:
    if not isinstance(value, list):
        return ()
    found: list[Terminal] = []
    for entry in value[:MAX_TERMINALS]:
        if isinstance(entry, dict) and (pid := _pid(entry.get("pid"))) is not None:
            found.append(Terminal(pid, _name(entry.get("name"))))
    return tuple(found)


def _read(path: Path) -> dict | None:
    """A registration file of this user's, read whole, or None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if ownership.refusal(st, ownership.FILE) is not None or st.st_size > MAX_FILE_BYTES:
            return None
        data = os.read(fd, MAX_FILE_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    try:
        value = json.loads(data)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def parse_window(data: dict, where: Path, now: float) -> Window | None:
    ident, host_pid, started = data.get("id"), _pid(data.get("host_pid")), _time_ms(data.get("started"), now)
    if not isinstance(ident, str) or not _ID.fullmatch(ident) or host_pid is None or started is None:
        return None
    if data.get("protocol") != PROTOCOL or data.get("socket") != f"{ident}.sock":
        return None
    active = data.get("active")
    panels = data.get("panels")
    return Window(
        id=ident,
        socket=where / f"{ident}.sock",
        host_pid=host_pid,
        editor_pid=_pid(data.get("editor_pid")),
        started=started,
        updated=_time_ms(data.get("updated"), now) or started,
        app=_name(data.get("app")),
        ui="web" if data.get("ui") == "web" else "desktop",
        companion=_name(data.get("companion")),
        terminals=_terminals(data.get("terminals")),
        active=_pid(active.get("pid")) if isinstance(active, dict) else None,
        panels=frozenset(p for p in clients.ids() if isinstance(panels, dict) and panels.get(p) is True),
    )


def parse_closed(data: dict, now: float) -> ClosedWindow | None:
    ident, closed = data.get("id"), _time_ms(data.get("closed"), now)
    if not isinstance(ident, str) or not _ID.fullmatch(ident) or closed is None:
        return None
    return ClosedWindow(
        id=ident,
        app=_name(data.get("app")),
        closed=closed,
        editor_pid=_pid(data.get("editor_pid")),
        terminals=_terminals(data.get("terminals")),
    )


def read(where: Path | None = None, now: float | None = None) -> Registrations:
    """Every window registered in `where` (lunavect's editors folder), open or closed."""
    where = folder() if where is None else where
    now = time.time() if now is None else now
    found = Registrations([], [])
    try:
        names = sorted(os.listdir(where))
    except OSError:
        return found
    for name in names:
        if name.endswith(REGISTRATION_SUFFIX):
            data = _read(where / name)
            window = parse_window(data, where, now) if data is not None else None
            if window is None or name != f"{window.id}{REGISTRATION_SUFFIX}":
                found.skipped += 1
            else:
                found.windows.append(window)
        elif name.endswith(CLOSED_SUFFIX):
            data = _read(where / name)
            closed = parse_closed(data, now) if data is not None else None
            if closed is None or name != f"{closed.id}{CLOSED_SUFFIX}":
                found.skipped += 1
            elif now - closed.closed <= CLOSED_KEPT_S:
                found.closed.append(closed)
    return found
