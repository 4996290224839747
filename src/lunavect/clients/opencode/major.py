"""Whether OpenCode 2 is on this machine: lunavect reads OpenCode 1's database and plugin events, not yet 2's.

OpenCode 2 (`@opencode/cli`, now OpenCode's default install) changed its plugin format (a default export with
`id` and `setup`), its events and its database (tables `session_v2` and `session_message`). It is not on the
package registry this project tests against, so it cannot be proven here: rather than show nothing without a
word, `doctor`, the empty panel and the README say that its sessions are not read yet. Two signs tell it: the
database holding OpenCode 2's session table, and the `opencode` on PATH answering a version 2 or later.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
import subprocess
from functools import lru_cache

from lunavect.clients.opencode import places
from lunavect.clients.opencode.database import Database

V2_TABLE = "session_v2"
VERSION_TIMEOUT_S = 3.0
_VERSION = re.compile(rb"^\s*v?(\d{1,4})\.\d{1,6}\.\d{1,6}\b")


def database_is_v2() -> bool:
    """The database holds OpenCode 2's session table (read-only, through the reader's own opening)."""
    path = places.database_path()
    if path is None or not path.exists():
        return False
    database = Database(path)
    try:
        found = (
            database.connection()
            .execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (V2_TABLE,))
            .fetchone()
        )
    except (sqlite3.Error, OSError):
        return False
    finally:
        database.close()
    return found is not None


def major_of(output: bytes) -> int | None:
    """The major version `opencode --version` printed (`2.3.1`), or None for anything else."""
    match = _VERSION.match(output[:200])
    return int(match.group(1)) if match else None


@lru_cache(maxsize=1)
def binary_major() -> int | None:
    """The major version of the `opencode` on PATH (asked once a process: it starts the client's binary), or
    None when there is none or it does not say."""
    command = shutil.which("opencode")
    if command is None:
        return None
    try:
        done = subprocess.run(
            [command, "--version"], capture_output=True, timeout=VERSION_TIMEOUT_S, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return major_of(done.stdout)


def unread() -> str | None:
    """One sentence when OpenCode 2 is here, naming the sign; None otherwise."""
    major = binary_major()
    if major is not None and major >= 2:
        sign = f"the opencode on PATH is version {major}"
    elif database_is_v2():
        sign = f"its database holds OpenCode 2's sessions ({V2_TABLE})"
    else:
        return None
    return f"OpenCode 2 found ({sign}): lunavect does not read OpenCode 2's sessions yet, only OpenCode 1's."
