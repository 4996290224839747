"""Where Pi keeps what lunavect reads and writes, derived only from the environment, as Pi derives it.

Observed with Pi 0.73.1 (tests/clients/NOTES.md): everything lives in its agent folder, `$PI_CODING_AGENT_DIR`
(a leading `~/` is the home folder) else `~/.pi/agent`: `extensions/*.ts` (loaded at its start, lunavect's
`lunavect.ts` among them), `models.json`, `settings.json`, and `sessions/--<folder with "/" as "-">--/<time>_<session
id>.jsonl`, one file a session, made with its first message. `$PI_CODING_AGENT_SESSION_DIR` keeps every session's
file directly in the folder it names instead (its `--session-dir` option and `sessionDir` setting too, which only
the hook records' file paths tell lunavect).
"""

from __future__ import annotations

import os
from pathlib import Path

EXTENSIONS_FOLDER = "extensions"
EXTENSION_NAME = "lunavect.ts"
SESSIONS_FOLDER = "sessions"


def _home() -> Path:
    return Path(os.environ.get("HOME") or os.path.expanduser("~"))


def _expand(value: str) -> Path | None:
    """A folder as Pi reads its variables (`~` and `~/…` are the home folder); None for a relative one."""
    value = value.strip()
    if value == "~" or value.startswith("~/"):
        return _home() / value[2:]
    return Path(value) if value.startswith("/") else None


def agent_dir() -> Path:
    named = _expand(os.environ.get("PI_CODING_AGENT_DIR", ""))
    return named if named is not None else _home() / ".pi" / "agent"


def extension_path() -> Path:
    return agent_dir() / EXTENSIONS_FOLDER / EXTENSION_NAME


def sessions_dir() -> Path:
    named = _expand(os.environ.get("PI_CODING_AGENT_SESSION_DIR", ""))
    return named if named is not None else agent_dir() / SESSIONS_FOLDER


def session_files(root: Path) -> list[tuple[str, os.stat_result]]:
    """Every session file under `root` (`<root>/--<folder>--/*.jsonl`, or `<root>/*.jsonl` for a sessions folder
    of the person's own), with its stat, newest first."""
    found: list[tuple[str, os.stat_result]] = []
    try:
        entries = list(os.scandir(root))
    except OSError:
        return found
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            try:
                found.extend(
                    (e.path, e.stat(follow_symlinks=False)) for e in os.scandir(entry.path) if is_session_file(e.path)
                )
            except OSError:
                continue
        elif is_session_file(entry.path):
            try:
                found.append((entry.path, entry.stat(follow_symlinks=False)))
            except OSError:
                continue
    found.sort(key=lambda item: -item[1].st_mtime)
    return found


def is_session_file(path: str) -> bool:
    return path.endswith(".jsonl") and not os.path.basename(path).startswith(".")
