"""The tmux popup: the sessions that need their person, one per line; Enter returns to the chosen one.

It runs inside `display-popup -E`, so it owns a small terminal: arrows or j/k move, Enter opens the session
with `navigation.navigate.open_session` (the code `lunavect open` runs), q or Esc closes. Raw terminal input
is read directly: a full UI toolkit would cost more to start than the whole popup is on screen.
"""

from __future__ import annotations

import os
import sys
import termios
import tty
from collections.abc import Callable

from lunavect.core.model import Session
from lunavect.frontends.rows import label, waited
from lunavect.listing.attention import NOTHING_WAITS

REVERSE = "\x1b[7m"
RESET = "\x1b[0m"
CLEAR = "\x1b[H\x1b[2J"
KEYS_UP = {"k", "\x1b[A"}
KEYS_DOWN = {"j", "\x1b[B"}
KEYS_QUIT = {"q", "\x1b", "\x03"}


def draw(sessions: list[Session], chosen: int) -> str:
    if not sessions:
        return f"{CLEAR}lunavect: {NOTHING_WAITS}.\r\n\r\n(any key closes)"
    lines = [f"{CLEAR}lunavect: {len(sessions)} need you   ↑↓ choose · Enter open · q close\r\n"]
    for index, session in enumerate(sessions):
        text = f"{label(session)}  {waited(session)}"
        lines.append(f"{REVERSE if index == chosen else ''}{text}{RESET}\r\n")
    return "".join(lines)


def read_key(fd: int) -> str:
    data = os.read(fd, 16).decode("utf-8", "replace")
    return data


def choose(
    sessions: list[Session], fd: int | None = None, write: Callable[[str], object] | None = None
) -> Session | None:
    """Let the person pick one session; None when they closed the popup."""
    fd = sys.stdin.fileno() if fd is None else fd
    out = write or (lambda text: (sys.stdout.write(text), sys.stdout.flush()))
    saved = termios.tcgetattr(fd)
    tty.setraw(fd)
    chosen = 0
    try:
        while True:
            out(draw(sessions, chosen))
            key = read_key(fd)
            if not sessions or key in KEYS_QUIT:
                return None
            if key in ("\r", "\n"):
                return sessions[chosen]
            if key in KEYS_UP:
                chosen = max(0, chosen - 1)
            elif key in KEYS_DOWN:
                chosen = min(len(sessions) - 1, chosen + 1)
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
