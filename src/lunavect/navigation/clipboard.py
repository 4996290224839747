"""Copying a resume command to the clipboard with whatever this desktop offers.

macOS has pbcopy; Wayland wl-copy; X11 xclip or xsel; inside tmux, `load-buffer -w` also hands the text to
the outer terminal's clipboard. The copiers keep running to serve the selection, so their output is not
waited for.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from lunavect.navigation.terminals import tmux

COPY_TIMEOUT_S = 10.0


class ClipboardError(Exception):
    """No clipboard could take the text; the message says why in one line."""


def copy_argvs(environ: dict[str, str], platform: str = sys.platform) -> list[list[str]]:
    """The copy commands to try, best first, for this desktop."""
    argvs: list[list[str]] = []
    if platform == "darwin":
        argvs.append(["pbcopy"])
    if environ.get("WAYLAND_DISPLAY"):
        argvs.append(["wl-copy"])
    if environ.get("DISPLAY"):
        argvs.append(["xclip", "-selection", "clipboard"])
        argvs.append(["xsel", "--clipboard", "--input"])
    server = tmux.own_server(environ)
    if server is not None:  # the text goes to a server of this user's only, never to another's `$TMUX`
        argvs.append(["tmux", "-S", server.socket, "load-buffer", "-w", "-"])
    return argvs


def copy(text: str, environ: dict[str, str] | None = None) -> str:
    """Copy `text`; returns the name of the tool that took it."""
    env = dict(os.environ if environ is None else environ)
    tried: list[str] = []
    for argv in copy_argvs(env):
        if shutil.which(argv[0], path=env.get("PATH")) is None:
            continue
        tried.append(argv[0])
        try:
            proc = subprocess.run(
                argv,
                input=text.encode(),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=COPY_TIMEOUT_S,
                env=env,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            continue
        if proc.returncode == 0:
            return argv[0]
    if tried:
        raise ClipboardError(f"the clipboard refused the text ({', '.join(tried)} failed)")
    raise ClipboardError("no clipboard tool found (pbcopy, wl-copy, xclip, xsel or tmux)")
