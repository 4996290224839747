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


def apply_block(sockets: list[str], taken: frozenset[str] = frozenset()) -> None:
    """Source the block (binding none of the `taken` keys) into each running server, as the server would read
    it at its next start."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "lunavect.tmux.conf"
        path.write_text(block(taken=taken), encoding="utf-8")
        for socket in sockets:
            run(tmux.argv(socket, "source-file", str(path)))


def _binding(socket: str, key: str) -> str | None:
    """What `key` after the prefix runs on a server (its `list-keys` line), or None when it is not bound."""
    shown = run(tmux.argv(socket, "list-keys", "-T", "prefix", key))
    return shown.stdout.strip() or None if shown.ok else None


def _lunavects(binding: str) -> bool:
    return "lunavect" in binding and ("tmux popup" in binding or " next" in binding)


def persons_keys(sockets: list[str], keys: tuple[str, ...] = (POPUP_KEY, NEXT_KEY)) -> frozenset[str]:
    """Which of `keys` a running server binds to something of the person's (not lunavect's popup or next)."""
    return frozenset(
        key for socket in sockets for key in keys if (bound := _binding(socket, key)) and not _lunavects(bound)
    )


def release(sockets: list[str], keys: frozenset[str]) -> bool:
    """Unbind the `keys` where a running server still has lunavect's binding on them (an older block took a key
    the person binds): True when one was, since the person's own returns only when tmux reads their file."""
    released = False
    for socket in sockets:
        for key in keys:
            bound = _binding(socket, key)
            if bound and _lunavects(bound):
                run(tmux.argv(socket, "unbind-key", "-T", "prefix", key))
                released = True
    return released


def remove_from(sockets: list[str]) -> None:
    """Unset lunavect's options and key, and take its fragments out of `status-right` and `pane-border-format`,
    on each server: what is left is exactly the person's own value."""
    for socket in sockets:
        commands: list[str] = []
        for name in GLOBAL_OPTIONS:
            commands += ["set-option", "-gu", name, ";"]
        for key in (POPUP_KEY, NEXT_KEY):  # only lunavect's own bindings: a key the person binds stays theirs
            if (bound := _binding(socket, key)) and _lunavects(bound):
                commands += ["unbind-key", "-T", "prefix", key, ";"]
        run(tmux.argv(socket, *commands[:-1]))
        panes = run(tmux.argv(socket, "list-panes", "-a", "-F", "#{pane_id}"))
        for pane in panes.stdout.split() if panes.ok else []:
            run(tmux.argv(socket, "set-option", "-pu", "-t", pane, PANE_OPTION))
        _take_out(socket, "status-right", STATUS_FRAGMENT)
        _take_out(socket, "pane-border-format", BORDER_FRAGMENT)


def border_status_off(sockets: list[str], conf_text: str) -> bool:
    """Whether pane borders (where each pane's state shows) stay undrawn: off on a running server, or, with none
    running, not set by the person's tmux.conf."""
    if sockets:
        return any(
            run(tmux.argv(s, "show-options", "-gv", "pane-border-status")).stdout.strip() == "off" for s in sockets
        )
    return "pane-border-status" not in conf_text


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
