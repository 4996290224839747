"""Return to a task: bring a live session's exact terminal pane or tab to the front, or resume a finished one.

This is the one function every front end calls (`lunavect open`, the panel's Enter and row menu). It fails
closed: a session is focused only where the evidence places it, each way it can fail has its own outcome
and message, and a finished session is resumed only as the person asked (printed, copied, or opened in a
new tmux or terminal window), as is a session its client runs in the background (`background.py`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from lunavect import clients
from lunavect.evidence.sources import BackgroundJob
from lunavect.host.processes import LiveProcesses, ProcessTable, ancestry
from lunavect.navigation import background, remote_host, resume
from lunavect.navigation.editors import install as editor_companions
from lunavect.navigation.editors import route as editor_route
from lunavect.navigation.editors import windows as editor_windows
from lunavect.navigation.locate import SessionLike, Status, Whereabouts, locate
from lunavect.navigation.open_result import OpenResult, Outcome
from lunavect.navigation.terminals import desktop, detect, kitty, macos, tmux, wezterm

RESUME_CHOICES = ("print", "clipboard", "tmux", "terminal")


def own_tty(table: ProcessTable) -> str | None:
    """The terminal this command runs in (its own, or its nearest parent's), to pick the tmux client."""
    for fd in (0, 1, 2):
        try:
            if os.isatty(fd):
                return os.ttyname(fd)
        except OSError:
            continue
    for proc in ancestry(table, os.getpid()):
        if proc.tty:
            return proc.tty
    return None


def tmux_pane(where: Whereabouts, table: ProcessTable, environ: Mapping[str, str]) -> tmux.Pane | None:
    """The live tmux pane on a live session's terminal device, on one of this user's tmux servers (those among
    the agent's parents, then tmux's default folder's), or None when no such pane holds it."""
    assert where.pid is not None and where.tty is not None
    sockets = tmux.server_sockets(table, where.pid) + tmux.default_sockets(environ=dict(environ))
    return tmux.find_pane(sockets, where.tty, where.tmux_pane)


def focus_live(where: Whereabouts, table: ProcessTable, environ: Mapping[str, str]) -> OpenResult:
    """Focus the terminal of a session placed on a live terminal device."""
    assert where.pid is not None and where.tty is not None
    pane = tmux_pane(where, table, environ)
    if pane is not None:
        mine = own_tty(table)
        return tmux.focus(pane, mine, tmux.own_tmux_session(mine, [pane.socket]))
    chain = ancestry(table, where.pid)
    in_editor = editor_route.focus_terminal(chain, editor_windows.read(), editor_companions.is_installed)
    if in_editor is not None:
        return in_editor
    host = detect.terminal_host(chain)
    if host is None:
        return OpenResult(
            Outcome.UNSUPPORTED, f"it runs on {where.tty} in a terminal lunavect cannot script", target=where.tty
        )
    name = host.proc.name or host.proc.exe_name
    if host.kind == detect.TMUX:
        return OpenResult(
            Outcome.GONE, f"no live tmux pane holds {where.tty} any more", terminal="tmux", target=where.tty
        )
    if host.kind == detect.KITTY:
        address = kitty.socket_address(table.unix_sockets(host.proc.pid))
        child = host.child.pid if host.child else where.pid
        return kitty.focus(address, child)
    if host.kind == detect.WEZTERM:
        return wezterm.focus(wezterm.socket_path(table.unix_sockets(host.proc.pid)), where.tty)
    if host.kind == detect.ITERM2:
        return macos.focus(macos.ITERM2[0], where.tty)
    if host.kind == detect.TERMINAL_APP:
        return macos.focus(macos.TERMINAL[0], where.tty)
    if host.kind == detect.DESKTOP_TERMINAL:
        return desktop.focus(name, host.proc.pid, dict(environ))
    if host.kind == detect.SSH:
        return OpenResult(
            Outcome.UNSUPPORTED,
            "it runs in an SSH login, whose terminal is on another machine",
            terminal="ssh",
            target=where.tty,
        )
    return OpenResult(Outcome.UNSUPPORTED, f"it runs in {name}, which lunavect cannot bring forward", terminal=name)


def ambiguous(where: Whereabouts, doing: str = "") -> OpenResult:
    """Several terminals or sessions fit: never one of them, and the candidates named. `doing` leads the message
    (what could not be done)."""
    return OpenResult(
        Outcome.AMBIGUOUS,
        f"{doing}cannot tell which terminal is this session's: {where.detail}",
        candidates=where.candidates,
    )


def _with_resume(result: OpenResult, session: SessionLike) -> OpenResult:
    """An unsupported route still offers the resume command (the guide: use the row's resume action)."""
    if result.outcome != Outcome.UNSUPPORTED or result.command:
        return result
    command = resume.display_command(session.provider, session.session_id, session.cwd)
    if not command:
        return result
    return OpenResult(
        result.outcome,
        f"{result.message}; to continue it elsewhere: {command}",
        terminal=result.terminal,
        target=result.target,
        command=command,
    )


def resume_finished(session: SessionLike, why: str, resume_in: str | None, environ: Mapping[str, str]) -> OpenResult:
    """A finished session: its resume command, run as asked."""
    plan = resume.plan(session.provider, session.session_id, session.cwd)
    if isinstance(plan, OpenResult):
        return OpenResult(plan.outcome, f"{why}; {plan.message}", command=plan.command)
    return resume.deliver(plan, resume_in, environ, why)


def background_job(session: SessionLike, table: ProcessTable) -> BackgroundJob | None:
    """The job of a session its client runs in the background (Claude Code's `claude --bg`), from its client's
    live catalog and jobs folder now: its terminal is its client's service's, never one to focus or type into."""
    return clients.background_job(session.provider, session.session_id, table)


def whereabouts(session: SessionLike, table: ProcessTable, others: Sequence[SessionLike] = ()) -> Whereabouts:
    """Where a session of this machine runs now, from its recorded process, its client's live catalog (Claude
    Code's) and its folder (`locate`); also what the notifier asks to tell whether its person is looking at it."""
    catalog = clients.live_catalog(session.provider)
    return locate(session, table, catalog, others, origin=lambda: getattr(session, "entrypoint", None))


def open_session(
    session: SessionLike,
    *,
    resume_in: str | None = None,
    others: Sequence[SessionLike] = (),
    table: ProcessTable | None = None,
    environ: Mapping[str, str] | None = None,
) -> OpenResult:
    """Return the person to `session`. `others` are the other known sessions (a folder shared with one of
    them is never enough to place a session); `resume_in` says how to resume a finished one."""
    host = getattr(session, "host", None)
    env = os.environ if environ is None else environ
    if host and remote_host.is_elsewhere(host):
        # A synced session's pids and devices belong to its own machine: that machine's lunavect opens it.
        live, in_tmux = bool(getattr(session, "open", True)), bool(getattr(session, "in_tmux", False))
        return remote_host.open_remote(host, session.id, env, live=live, in_tmux=in_tmux)
    table = table or LiveProcesses()
    # A session its client runs in the background holds its service's terminal, never the person's: its way
    # back is the client's attach command, whatever terminal its process is on.
    job = background_job(session, table)
    if job is not None and job.live:
        return background.open_attached(session, job, resume_in, env)
    where = whereabouts(session, table, others)
    if where.status == Status.LIVE:
        return _with_resume(focus_live(where, table, env), session)
    if where.status == Status.NO_TERMINAL:
        chain = ancestry(table, where.pid) if where.pid is not None else []
        panel = editor_route.open_panel(session.provider, session.session_id, where.app, chain, editor_windows.read())
        if panel is not None:
            return _with_resume(panel, session)
        app = where.app or "an app without a terminal"
        return _with_resume(
            OpenResult(
                Outcome.UNSUPPORTED, f"it runs in {app}, which lunavect cannot bring forward", terminal=where.app
            ),
            session,
        )
    if where.status == Status.AMBIGUOUS:
        return ambiguous(where)
    why = f"the session has finished ({where.detail})"
    if job is not None:
        return background.resume_stopped(session, job, why, resume_in, env)
    return resume_finished(session, why, resume_in, env)
