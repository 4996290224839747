"""Which terminal (or app) an agent runs in, from its parent processes' executable names alone.

The nearest recognised parent decides: a kitty or WezTerm window, an iTerm2 or Terminal tab, a plain
desktop terminal, an editor's integrated terminal, a desktop app, or an SSH login (whose terminal is on
another machine).
"""

from __future__ import annotations

from dataclasses import dataclass

from lunavect.core import clients
from lunavect.host.processes import Proc

KITTY, WEZTERM, ITERM2, TERMINAL_APP = "kitty", "wezterm", "iTerm2", "Terminal"
DESKTOP_TERMINAL, EDITOR, APP, SSH, TMUX = "desktop-terminal", "editor", "app", "ssh", "tmux"

_EXACT = {
    "kitty": KITTY,
    "wezterm-gui": WEZTERM,
    "wezterm-mux-server": WEZTERM,
    "wezterm": WEZTERM,
    "iTerm2": ITERM2,
    "Terminal": TERMINAL_APP,
    "sshd": SSH,
    "tmux: server": TMUX,
}
_PREFIXES = (("iTermServer", ITERM2), ("sshd:", SSH))
# Plain terminal emulators of a Linux desktop (tabbed ones are recognised so they can be refused).
DESKTOP_TERMINALS = frozenset(
    {
        "xterm",
        "uxterm",
        "alacritty",
        "foot",
        "st",
        "urxvt",
        "rxvt",
        "kterm",
        "aterm",
        "havoc",
        "gnome-terminal-server",
        "gnome-terminal",
        "konsole",
        "xfce4-terminal",
        "tilix",
        "terminator",
        "mate-terminal",
        "lxterminal",
        "qterminal",
        "terminology",
        "guake",
        "tilda",
        "yakuake",
        "ghostty",
        "kgx",
        "ptyxis",
        "ptyxis-agent",
        "blackbox",
        "contour",
        "rio",
        "warp",
        "hyper",
        "tabby",
    }
)
# The JetBrains family, which editor routing names on its own (it has no companion yet).
JETBRAINS = frozenset(
    {
        "idea",
        "pycharm",
        "webstorm",
        "goland",
        "clion",
        "rider",
        "rustrover",
        "phpstorm",
        "rubymine",
        "datagrip",
        "fleet",
    }
)
EDITORS = JETBRAINS | frozenset(
    {
        "code",
        "code-insiders",
        "codium",
        "cursor",
        "windsurf",
        "zed",
        "zed-editor",
        "Code Helper",
        "Code Helper (Plugin)",
        "Cursor Helper",
        "Cursor Helper (Plugin)",
        "Electron",
    }
)


@dataclass(frozen=True)
class TerminalHost:
    kind: str
    # The terminal's (or app's) own process.
    proc: Proc
    # The process directly below it: a kitty window's child, a terminal tab's shell.
    child: Proc | None


def kind_of(proc: Proc) -> str | None:
    for name in (proc.name, proc.exe_name):
        if not name:
            continue
        if name in _EXACT:
            return _EXACT[name]
        for prefix, kind in _PREFIXES:
            if name.startswith(prefix):
                return kind
        if name in DESKTOP_TERMINALS or name.lower() in DESKTOP_TERMINALS:
            return DESKTOP_TERMINAL
        if name in EDITORS:
            return EDITOR
        if any(name in client.origins.desktop_apps for client in clients.every()):
            return APP
    return None


def terminal_host(chain: list[Proc]) -> TerminalHost | None:
    """The nearest recognised terminal or app in `chain` (a process and its parents, nearest first)."""
    for index, proc in enumerate(chain):
        if index == 0:
            continue  # the agent itself
        kind = kind_of(proc)
        if kind is not None:
            return TerminalHost(kind, proc, chain[index - 1])
    return None
