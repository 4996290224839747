"""Every folder lunavect reads or writes, derived only from the environment.

Tests and people run side-by-side installations by pointing HOME, CLAUDE_CONFIG_DIR, CODEX_HOME and
LUNAVECT_HOME elsewhere, so nothing here may cache a path or look anywhere else.
"""

from __future__ import annotations

import os
from pathlib import Path

from lunavect.files import ownership
from lunavect.shim.spoolfile import SPOOL_DIR_NAME
from lunavect.shim.spoolfile import data_dir as _data_dir

STORE_FILE_NAME = "lunavect.sqlite3"
LOCK_FILE_NAME = "collector.lock"
LOG_FILE_NAME = "collector.log"


def _home() -> Path:
    return Path(os.environ.get("HOME") or os.path.expanduser("~"))


def data_dir() -> Path:
    """$LUNAVECT_HOME, or the platform's user data folder: the hook shim's rule (lunavect/shim/spoolfile.py),
    the one place it is written, since the shim must find the folder with the standard library alone."""
    return Path(_data_dir(os.environ))


def store_path() -> Path:
    return data_dir() / STORE_FILE_NAME


def spool_dir() -> Path:
    return data_dir() / SPOOL_DIR_NAME


def claude_config_dir() -> Path:
    """Claude Code's folder: $CLAUDE_CONFIG_DIR, or ~/.claude."""
    override = os.environ.get("CLAUDE_CONFIG_DIR")
    if override:
        return Path(os.path.expanduser(override))
    return _home() / ".claude"


def codex_home() -> Path:
    """Codex's folder: $CODEX_HOME, or ~/.codex."""
    override = os.environ.get("CODEX_HOME")
    if override:
        return Path(os.path.expanduser(override))
    return _home() / ".codex"


def ensure_private_dir(path: Path) -> Path:
    """Create a folder only its owner can read: it holds session ids, paths and times.

    An existing folder must be a real folder of this user that no one else can write: a link to (or a folder
    of) someone else would let them point the spool, the store or the poke file at any file this user can
    write. Raises PermissionError, with what to do, rather than use it."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    why = ownership.why_not_mine(path, ownership.FOLDER)
    if why is not None:
        raise PermissionError(
            f"{path} is {why}; lunavect keeps its data only in a folder of yours alone: "
            f"make it so (chmod 700) or set $LUNAVECT_HOME"
        )
    return path


def write_marker(path: str | Path, data: bytes) -> bool:
    """Replace a small file of lunavect's own whose change is a signal (the poke, the collector's wake marker):
    mode 0600, never through a link. False when it cannot be written; a signal lost is never an error."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    except OSError:
        return False
    try:
        os.write(fd, data)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
