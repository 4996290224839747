"""Showing a session's project folder in the desktop's file manager, when this machine has one.

Returning to the session itself is `lunavect.navigation.navigate.open_session`, shared with `lunavect open`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys


def folder_opener() -> list[str] | None:
    """The command that shows a folder in the file manager, when there is one."""
    if sys.platform == "darwin":
        return ["open"]
    path = shutil.which("xdg-open")
    if path:
        return [path]
    path = shutil.which("gio")
    return [path, "open"] if path else None


def has_desktop() -> bool:
    """A file manager can only open where a desktop session runs."""
    return sys.platform == "darwin" or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def open_folder(path: str) -> bool:
    """Open a project folder in the file manager; False when there is none (the panel then shows the path)."""
    opener = folder_opener()
    if opener is None or not has_desktop() or not os.path.isdir(path):
        return False
    try:
        subprocess.Popen(
            [*opener, path],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        return False
    return True
