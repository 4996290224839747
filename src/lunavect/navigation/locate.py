"""Where a session lives: its agent process and the terminal device it runs on, or why that is unknown.

Returning a person to a task must fail closed: focusing the wrong tab is worse than doing nothing. So a
session is placed only by evidence that names it: the process its own hooks recorded (checked against its
start time, since pids are reused), or Claude Code's live catalog entry for its session id. A project folder
alone places a session only when exactly one agent terminal runs there and no other session shares the
folder; several sessions in one folder are never interchangeable, and a Desktop or editor session is never
matched to a CLI in the same folder.

Everything here takes the process table, the catalog and the other sessions as arguments, so the rules are
tested with invented process tables.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from lunavect.core.clients import by_id
from lunavect.evidence.sources import LiveEntry as CatalogEntry
from lunavect.files.folders import resolved
from lunavect.host.processes import Proc, ProcessTable, ancestry, is_same_process
from lunavect.navigation.origin import APP, classify
from lunavect.navigation.terminals import detect

# `Session.client` values of sessions that run in a terminal (anything else is a Desktop app or an editor).
TERMINAL_CLIENTS = frozenset({"cli", "exec"})


def agent_names(provider: str) -> tuple[str, ...]:
    """The executable names of the client's own runtime (a launcher script's interpreter is not the agent):
    the same the hook shim looks for among its ancestors."""
    client = by_id(provider)
    return client.process.names if client is not None else ()


class SessionLike(Protocol):
    """What locating needs of a session (lunavect.core.model.Session has it all)."""

    id: str
    provider: str
    session_id: str
    cwd: str | None
    pid: int | None
    tty: str | None


class Status(enum.StrEnum):
    LIVE = "live"  # running, on a known terminal device
    NO_TERMINAL = "no-terminal"  # running, but in an app or editor without a terminal device
    FINISHED = "finished"  # its process has exited, or nothing runs it
    AMBIGUOUS = "ambiguous"  # a folder names several terminals or sessions
    UNKNOWN = "unknown"  # nothing is known of where it runs


@dataclass(frozen=True)
class Whereabouts:
    status: Status
    pid: int | None = None
    tty: str | None = None
    # The exact tmux pane Claude Code's catalog names for this process (`%N`).
    tmux_pane: str | None = None
    # Which evidence placed it: hook, catalog, ancestry (a parent's terminal), folder.
    via: str | None = None
    # For NO_TERMINAL: the client's own origin value (e.g. `claude-vscode`), when known.
    app: str | None = None
    # For AMBIGUOUS: what could not be told apart, in words.
    candidates: tuple[str, ...] = ()
    detail: str | None = None


def _catalog_process(table: ProcessTable, entry: CatalogEntry, provider: str) -> Proc | None:
    """The live process of a catalog entry; a stale entry (crashed client, reused pid) gives None."""
    proc = is_same_process(table, entry.pid, entry.started)
    if proc is None:
        return None
    if entry.started is None and not proc.named(*agent_names(provider)):
        return None  # no start time to compare: at least the name must be the agent's
    return proc


def terminal_of(table: ProcessTable, proc: Proc, recorded_tty: str | None) -> tuple[str | None, str]:
    """The terminal device of a live agent process, and how it was found.

    The device the hooks recorded counts only while the process still has it (a device is reused once
    its terminal closes). A process without a terminal of its own (a detached hook's client, a runtime
    under a supervisor) takes the nearest parent's.
    """
    if proc.tty:
        return proc.tty, "hook" if recorded_tty == proc.tty else "process"
    for parent in ancestry(table, proc.ppid):
        if detect.kind_of(parent) in (detect.EDITOR, detect.APP):
            break  # an app launched from a terminal keeps that terminal, which is not this session's
        if parent.tty:
            return parent.tty, "ancestry"
    return None, "process"


def _live(
    table: ProcessTable, proc: Proc, recorded_tty: str | None, via: str, pane: str | None, app: str | None = None
) -> Whereabouts:
    tty, how = terminal_of(table, proc, recorded_tty)
    if tty is None:
        return Whereabouts(
            Status.NO_TERMINAL, pid=proc.pid, via=via, app=app, detail=f"its process (pid {proc.pid}) has no terminal"
        )
    return Whereabouts(Status.LIVE, pid=proc.pid, tty=tty, tmux_pane=pane, via=via if how != "ancestry" else how)


def _runs_in(pid: int, via: str, app: str | None) -> Whereabouts:
    """A live process in an app of the client's own (a desktop app, an editor): no terminal is its own."""
    return Whereabouts(Status.NO_TERMINAL, pid=pid, via=via, app=app, detail=f"it runs in {app}")


def locate(
    session: SessionLike,
    table: ProcessTable,
    catalog: Sequence[CatalogEntry] = (),
    others: Sequence[SessionLike] = (),
    origin: Callable[[], str | None] = lambda: None,
) -> Whereabouts:
    """Where `session` runs now. `catalog` is its client's live catalog (Claude Code's; none for Codex);
    `others` are the rest of the known sessions (for the folder rule); `origin` gives the client's own origin
    value from the session's log (read only when needed)."""
    by_pid = {entry.pid: entry for entry in catalog}
    pstart = getattr(session, "pstart", None)
    client = getattr(session, "client", None)
    app_client = client if client and client not in TERMINAL_CLIENTS else None

    # 1. The process the session's own hooks recorded, if it is still that process.
    if session.pid is not None:
        proc = is_same_process(table, session.pid, pstart)
        if proc is not None and app_client:
            return _runs_in(proc.pid, "metadata", app_client)
        if proc is not None:
            entry = by_pid.get(proc.pid)
            pane = entry.tmux_pane if entry and entry.session_id == session.session_id else None
            if entry and entry.session_id == session.session_id and classify(session.provider, entry.entrypoint) == APP:
                return _runs_in(proc.pid, "catalog", entry.entrypoint)
            return _live(table, proc, session.tty, "hook", pane)

    # 2. The client's live catalog (Claude Code's) names the session's current process (also after a resume).
    for entry in catalog:
        if entry.session_id != session.session_id:
            continue
        proc = _catalog_process(table, entry, session.provider)
        if proc is None:
            continue
        if classify(session.provider, entry.entrypoint) == APP:
            return _runs_in(proc.pid, "catalog", entry.entrypoint)
        return _live(table, proc, None, "catalog", entry.tmux_pane)

    if session.pid is not None:
        return Whereabouts(Status.FINISHED, pid=session.pid, detail=f"its process (pid {session.pid}) has exited")

    # 3. Only a folder is known.
    return _by_folder(session, table, by_pid, others, origin)


def _by_folder(
    session: SessionLike,
    table: ProcessTable,
    by_pid: dict[int, CatalogEntry],
    others: Sequence[SessionLike],
    origin: Callable[[], str | None],
) -> Whereabouts:
    folder = resolved(session.cwd)
    if folder is None:
        return Whereabouts(Status.UNKNOWN, detail="neither its process nor its project folder is known")
    client = getattr(session, "client", None)
    if client and client not in TERMINAL_CLIENTS:
        # A Desktop or editor session is a different conversation from any CLI in the same folder.
        return Whereabouts(Status.NO_TERMINAL, via="metadata", app=client, detail=f"it was started in {client}")
    value = origin()
    if classify(session.provider, value) == APP:
        # A Desktop or editor session is a different conversation from any CLI in the same folder.
        return Whereabouts(Status.NO_TERMINAL, via="log", app=value, detail=f"it was started in {value}")
    names = agent_names(session.provider)
    claimed = {o.pid for o in others if o.pid is not None and o.id != session.id}
    candidates: list[Proc] = []
    for proc in table.processes():
        if proc.zombie or not proc.tty or not proc.named(*names) or proc.pid in claimed:
            continue
        entry = by_pid.get(proc.pid)
        if entry is not None and entry.session_id != session.session_id:
            continue  # the catalog says this process runs another session
        if resolved(table.cwd(proc.pid)) == folder:
            candidates.append(proc)
    rivals = sorted(
        o.id
        for o in others
        if o.id != session.id and o.provider == session.provider and o.pid is None and resolved(o.cwd) == folder
    )
    if not candidates:
        return Whereabouts(Status.FINISHED, detail=f"no {session.provider} process runs in {folder}")
    if len(candidates) == 1 and not rivals:
        only = candidates[0]
        return Whereabouts(Status.LIVE, pid=only.pid, tty=only.tty, via="folder")
    described = tuple(f"pid {p.pid} on {p.tty}" for p in sorted(candidates, key=lambda p: p.pid))
    detail = f"{len(candidates)} {session.provider} terminal(s) run in {folder}"
    if rivals:
        detail += f" and {len(rivals)} other session(s) share that folder ({', '.join(rivals)})"
    return Whereabouts(Status.AMBIGUOUS, candidates=described + tuple(rivals), detail=detail)
