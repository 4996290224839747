"""Is the person looking at a session right now? Its tmux pane is the active pane of an attached client that
saw recent activity, or its terminal's window is the desktop's focused one (X11's active window through EWMH,
sway, Hyprland, macOS's frontmost app).

The notifier asks this before it speaks, so that nobody is told about the pane they are reading; a status bar
may ask it too. Every probe is a bounded request (the runner's timeout) and any failure means "not looking":
a notification too many is better than a missed one.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping, Sequence

from lunavect.host.processes import LiveProcesses, ProcessTable, ancestry
from lunavect.navigation import remote_host
from lunavect.navigation.locate import SessionLike, Status
from lunavect.navigation.navigate import whereabouts
from lunavect.navigation.terminals import tmux
from lunavect.navigation.terminals.runner import Reply, run
from lunavect.navigation.terminals.tmux import Runner

# A tmux client counts as watched when a key was pressed in it (or it attached) this recently.
RECENT_ACTIVITY_S = 300.0
# Seconds a focus probe may take before it counts as "not looking".
PROBE_TIMEOUT_S = 2.0
PANE_STATE_FORMAT = "#{pane_active}\t#{window_active}\t#{session_name}"


def _bounded(argv: list[str]) -> Reply:
    return run(argv, timeout=PROBE_TIMEOUT_S)


def pane_watched(pane: tmux.Pane, now: float, runner: Runner = _bounded) -> bool:
    """The pane is its window's active pane, the window its session's current one, and a client attached to
    that session had activity within `RECENT_ACTIVITY_S`."""
    reply = runner(tmux.argv(pane.socket, "display-message", "-p", "-t", pane.pane_id, PANE_STATE_FORMAT))
    if not reply.ok:
        return False
    parts = reply.stdout.strip().split("\t")
    if len(parts) != 3 or parts[0] != "1" or parts[1] != "1":
        return False
    clients = runner(tmux.argv(pane.socket, "list-clients", "-F", tmux.CLIENT_FORMAT))
    if not clients.ok:
        return False
    return any(
        c.session == parts[2] and now - c.activity <= RECENT_ACTIVITY_S for c in tmux.parse_clients(clients.stdout)
    )


def focused_window_pid(
    environ: Mapping[str, str], runner: Runner | None = None, platform: str = sys.platform
) -> int | None:
    """The process id behind the desktop's focused window, where the desktop says it (asked in `environ`)."""
    if runner is None:
        env = dict(environ)

        def runner(argv: list[str]) -> Reply:
            return run(argv, timeout=PROBE_TIMEOUT_S, env=env)

    if platform == "darwin":
        reply = runner(
            [
                "osascript",
                "-e",
                'tell application "System Events" to get unix id of first process whose frontmost is true',
            ]
        )
        return _pid(reply.stdout) if reply.ok else None
    if environ.get("SWAYSOCK"):
        reply = runner(["swaymsg", "-t", "get_tree", "-r"])
        return _sway_focused(reply.stdout) if reply.ok else None
    if environ.get("HYPRLAND_INSTANCE_SIGNATURE"):
        reply = runner(["hyprctl", "activewindow", "-j"])
        if reply.ok:
            try:
                pid = json.loads(reply.stdout).get("pid")
            except (ValueError, AttributeError):
                return None
            return pid if isinstance(pid, int) and pid > 0 else None
        return None
    if environ.get("DISPLAY"):
        reply = runner(["xprop", "-root", "_NET_ACTIVE_WINDOW"])
        # "_NET_ACTIVE_WINDOW(WINDOW): window id # 0x1a00007" from a window manager; a plain number otherwise.
        text = reply.stdout.replace("#", "=").rsplit("=", 1)[-1].strip().split(",")[0] if reply.ok else ""
        try:
            number = int(text, 0)
        except ValueError:
            return None
        if number == 0:
            return None
        window = hex(number)
        reply = runner(["xprop", "-id", window, "_NET_WM_PID"])
        return _pid(reply.stdout.rsplit("=", 1)[-1]) if reply.ok and "=" in reply.stdout else None
    return None


def _pid(text: str) -> int | None:
    try:
        pid = int(text.strip())
    except ValueError:
        return None
    return pid if pid > 0 else None


def _sway_focused(text: str) -> int | None:
    try:
        nodes = [json.loads(text)]
    except ValueError:
        return None
    while nodes:
        node = nodes.pop()
        if not isinstance(node, dict):
            continue
        if node.get("focused") and isinstance(node.get("pid"), int):
            return int(node["pid"])
        nodes.extend(node.get("nodes") or [])
        nodes.extend(node.get("floating_nodes") or [])
    return None


def looking_at(
    session: SessionLike,
    now: float,
    others: Sequence[SessionLike] = (),
    table: ProcessTable | None = None,
    environ: Mapping[str, str] | None = None,
    runner: Runner = _bounded,
) -> bool:
    """True when the session's pane or window is what its person looks at now (see the module's docstring)."""
    if remote_host.is_elsewhere(getattr(session, "host", None)):
        return False  # another machine's pane: this machine cannot tell
    table = table or LiveProcesses()
    env = os.environ if environ is None else environ
    where = whereabouts(session, table, others)
    if where.status != Status.LIVE or where.pid is None or where.tty is None:
        return False
    sockets = tmux.server_sockets(table, where.pid) + tmux.default_sockets(environ=dict(env))
    pane = tmux.find_pane(sockets, where.tty, where.tmux_pane, runner=runner)
    if pane is not None:
        return pane_watched(pane, now, runner)
    window_pid = focused_window_pid(env)
    return window_pid is not None and any(p.pid == window_pid for p in ancestry(table, where.pid))
