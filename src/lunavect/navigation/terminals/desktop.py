"""A plain terminal's window on a Linux desktop (X11, sway, Hyprland), when it can be told apart.

Only terminals with one tab per window qualify, and only when their process owns exactly one window: a
window of a tabbed terminal, or one of several windows of one terminal process, could show another session,
and focusing the wrong tab is worse than doing nothing.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from lunavect.navigation.open_result import OpenResult, Outcome
from lunavect.navigation.terminals.runner import Reply, listed_ids, run

# Terminals whose windows hold exactly one terminal each (no tabs).
TABLESS = frozenset({"xterm", "uxterm", "alacritty", "foot", "st", "urxvt", "rxvt", "kterm", "aterm", "havoc"})

Runner = Callable[[list[str]], Reply]


def x11_search_argv(pid: int) -> list[str]:
    return ["xdotool", "search", "--pid", str(pid)]


def x11_activate_argv(window: str) -> list[str]:
    return ["xdotool", "windowactivate", window]


def sway_tree_argv() -> list[str]:
    return ["swaymsg", "-t", "get_tree", "-r"]


def sway_focus_argv(con_id: int) -> list[str]:
    return ["swaymsg", f"[con_id={con_id}]", "focus"]


def hyprland_clients_argv() -> list[str]:
    return ["hyprctl", "clients", "-j"]


def hyprland_focus_argv(address: str) -> list[str]:
    return ["hyprctl", "dispatch", "focuswindow", f"address:{address}"]


def sway_windows(tree: str, pid: int) -> list[int]:
    """Container ids of the sway windows owned by `pid`."""
    try:
        root = json.loads(tree)
    except ValueError:
        return []
    found: list[int] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        if node.get("pid") == pid and isinstance(node.get("id"), int):
            found.append(node["id"])
        for key in ("nodes", "floating_nodes"):
            children = node.get(key)
            if isinstance(children, list):
                stack.extend(children)
    return found


def hyprland_windows(listing: str, pid: int) -> list[str]:
    """Addresses of the Hyprland windows owned by `pid`."""
    return listed_ids(listing, "pid", pid, "address", str)


def _one(windows: list, terminal: str, focus_argv: list[str], runner: Runner) -> OpenResult:
    if not windows:
        return OpenResult(Outcome.GONE, f"no {terminal} window is open for it", terminal=terminal)
    if len(windows) > 1:
        return OpenResult(
            Outcome.AMBIGUOUS,
            f"the {terminal} process has {len(windows)} windows",
            terminal=terminal,
            candidates=tuple(str(w) for w in windows),
        )
    reply = runner(focus_argv)
    if reply.failure == "timeout":
        return OpenResult(Outcome.TIMEOUT, "the window manager did not answer within 10 s", terminal=terminal)
    if not reply.ok:
        return OpenResult(Outcome.FAILED, f"{focus_argv[0]}: {reply.error_line}", terminal=terminal)
    return OpenResult(Outcome.FOCUSED, f"the {terminal} window is in front", terminal=terminal, target=str(windows[0]))


def focus(terminal: str, terminal_pid: int, environ: dict[str, str], runner: Runner = run) -> OpenResult:
    """Focus the one window of `terminal_pid` on the running desktop."""
    if terminal not in TABLESS:
        return OpenResult(
            Outcome.UNSUPPORTED, f"{terminal} windows cannot be told apart by lunavect", terminal=terminal
        )
    if environ.get("SWAYSOCK"):
        listed = runner(sway_tree_argv())
        if listed.ok:
            ids = sway_windows(listed.stdout, terminal_pid)
            return _one(ids, terminal, sway_focus_argv(ids[0]) if ids else [], runner)
    if environ.get("HYPRLAND_INSTANCE_SIGNATURE"):
        listed = runner(hyprland_clients_argv())
        if listed.ok:
            addresses = hyprland_windows(listed.stdout, terminal_pid)
            return _one(addresses, terminal, hyprland_focus_argv(addresses[0]) if addresses else [], runner)
    if environ.get("DISPLAY"):
        listed = runner(x11_search_argv(terminal_pid))
        if listed.failure == "missing":
            return OpenResult(Outcome.UNSUPPORTED, "xdotool is not installed (it finds X11 windows)", terminal=terminal)
        if listed.failure == "timeout":
            return OpenResult(Outcome.TIMEOUT, "the X server did not answer within 10 s", terminal=terminal)
        windows = listed.stdout.split() if listed.ok else []
        return _one(windows, terminal, x11_activate_argv(windows[0]) if windows else [], runner)
    return OpenResult(Outcome.UNSUPPORTED, "no X11, sway or Hyprland session to find the window in", terminal=terminal)
