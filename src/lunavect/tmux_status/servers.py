"""Applying the block to tmux servers that already run, and taking everything back out of them."""

from __future__ import annotations

import tempfile
from pathlib import Path

from lunavect.core import tmux_text
from lunavect.navigation.terminals import tmux
from lunavect.navigation.terminals.runner import run
from lunavect.tmux_status.conf import BORDER_FRAGMENT, NEXT_KEY, OLD_BORDER_FORMAT, POPUP_KEY, STATUS_FRAGMENT, block
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
    """Unset lunavect's options and key, and take its fragments out of `status-right` and `pane-border-format`,
    on each server: what is left is exactly the person's own value."""
    for socket in sockets:
        commands: list[str] = []
        for name in GLOBAL_OPTIONS:
            commands += ["set-option", "-gu", name, ";"]
        commands += ["unbind-key", POPUP_KEY, ";", "unbind-key", NEXT_KEY]
        run(tmux.argv(socket, *commands))
        panes = run(tmux.argv(socket, "list-panes", "-a", "-F", "#{pane_id}"))
        for pane in panes.stdout.split() if panes.ok else []:
            run(tmux.argv(socket, "set-option", "-pu", "-t", pane, PANE_OPTION))
        _take_out(socket, "status-right", STATUS_FRAGMENT)
        _take_out(socket, "pane-border-format", BORDER_FRAGMENT)


def _take_out(socket: str, option: str, fragment: str) -> None:
    """The global `option` without lunavect's `fragment` (tmux's default again where an older block replaced
    the person's pane-border-format with its own). The value is the person's format: set as it is."""
    shown = run(tmux.argv(socket, "show-options", "-gv", option))
    if not shown.ok:
        return
    value = shown.stdout.removesuffix("\n")
    if value == OLD_BORDER_FORMAT and option == "pane-border-format":
        run(tmux.argv(socket, "set-option", "-gu", option))
    elif fragment in value:
        run(tmux.argv(socket, "set-option", "-g", option, tmux_text.argument(value.replace(fragment, ""))))
