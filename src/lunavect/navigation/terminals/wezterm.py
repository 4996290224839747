"""WezTerm: find the pane on the agent's terminal device with `wezterm cli list`, then activate it.

`wezterm cli` talks to the GUI through its socket; the socket is found among the WezTerm process's own open
sockets and handed over as `WEZTERM_UNIX_SOCKET`, never read from the agent's environment.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from lunavect.navigation.open_result import OpenResult, Outcome
from lunavect.navigation.terminals.runner import Reply, listed_ids, run

# `--no-auto-start`: a WezTerm that is not running is never started.
LIST_ARGV = ["wezterm", "cli", "--no-auto-start", "list", "--format", "json"]


def activate_argv(pane_id: int) -> list[str]:
    return ["wezterm", "cli", "--no-auto-start", "activate-pane", "--pane-id", str(pane_id)]


def socket_path(paths: list[str]) -> str | None:
    """WezTerm's GUI socket (`.../wezterm/gui-sock-<pid>`) among a process's sockets."""
    for path in paths:
        if "gui-sock" in os.path.basename(path):
            return path
    for path in paths:
        if "wezterm" in path and path.startswith("/"):
            return path
    return None


def panes_on(listing: str, tty: str) -> list[int]:
    """The pane ids `wezterm cli list --format json` shows on `tty`."""
    return listed_ids(listing, "tty_name", tty, "pane_id", int)


def focus(socket: str | None, tty: str, runner: Callable[..., Reply] = run) -> OpenResult:
    env = dict(os.environ)
    if socket:
        env["WEZTERM_UNIX_SOCKET"] = socket
    listed = runner(LIST_ARGV, env=env)
    if listed.failure == "missing":
        return OpenResult(Outcome.UNSUPPORTED, "the wezterm command is not on PATH", terminal="wezterm")
    if listed.failure == "timeout":
        return OpenResult(Outcome.TIMEOUT, "WezTerm did not answer within 10 s", terminal="wezterm")
    if not listed.ok:
        return OpenResult(Outcome.FAILED, f"wezterm: {listed.error_line}", terminal="wezterm")
    panes = panes_on(listed.stdout, tty)
    if not panes:
        return OpenResult(Outcome.GONE, f"no WezTerm pane runs on {tty} any more", terminal="wezterm", target=tty)
    if len(panes) > 1:
        return OpenResult(
            Outcome.AMBIGUOUS,
            f"{len(panes)} WezTerm panes report {tty}",
            terminal="wezterm",
            candidates=tuple(f"pane {p}" for p in panes),
        )
    reply = runner(activate_argv(panes[0]), env=env)
    if reply.failure == "timeout":
        return OpenResult(Outcome.TIMEOUT, "WezTerm did not answer within 10 s", terminal="wezterm")
    if not reply.ok:
        return OpenResult(Outcome.FAILED, f"wezterm: {reply.error_line}", terminal="wezterm")
    return OpenResult(Outcome.FOCUSED, f"WezTerm pane {panes[0]} is in front", terminal="wezterm", target=str(panes[0]))
