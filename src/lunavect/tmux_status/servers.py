"""Applying the block to tmux servers that already run, and taking everything back out of them."""

from __future__ import annotations

import tempfile
from pathlib import Path

from lunavect import tmux_text
from lunavect.navigation.terminals import tmux
from lunavect.navigation.terminals.runner import run
from lunavect.tmux_status.conf import POPUP_KEY, STATUS_FRAGMENT, block
from lunavect.tmux_status.options import GLOBAL_OPTIONS
from lunavect.tmux_status.publish import PANE_OPTION


def live_sockets() -> list[str]:
    return [s for s in tmux.default_sockets() if run(tmux.argv(s, "list-sessions")).ok]


def apply_block(sockets: list[str]) -> None:
    """Source the block into each running server, as the server would read it at its next start."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "lunavect.tmux.conf"
        path.write_text(block(), encoding="utf-8")
        for socket in sockets:
            run(tmux.argv(socket, "source-file", str(path)))


def remove_from(sockets: list[str]) -> None:
    """Unset lunavect's options and key, and take its fragment out of `status-right`, on each server."""
    for socket in sockets:
        commands: list[str] = []
        for name in GLOBAL_OPTIONS:
            commands += ["set-option", "-gu", name, ";"]
        commands += ["unbind-key", POPUP_KEY, ";", "set-option", "-gu", "pane-border-format"]
        run(tmux.argv(socket, *commands))
        panes = run(tmux.argv(socket, "list-panes", "-a", "-F", "#{pane_id}"))
        for pane in panes.stdout.split() if panes.ok else []:
            run(tmux.argv(socket, "set-option", "-pu", "-t", pane, PANE_OPTION))
        right = run(tmux.argv(socket, "show-options", "-gv", "status-right"))
        if right.ok and STATUS_FRAGMENT in right.stdout:
            value = right.stdout.rstrip("\n").replace(STATUS_FRAGMENT, "")
            run(tmux.argv(socket, "set-option", "-g", "status-right", tmux_text.argument(value)))
