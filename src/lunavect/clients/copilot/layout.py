"""Where GitHub Copilot CLI keeps what lunavect reads, and the small files beside each session's events.

Observed with Copilot CLI 1.0.102 (tests/clients/NOTES.md): everything lives in `~/.copilot` (`$COPILOT_HOME`
takes its place): `hooks/*.json` (hook files, lunavect's among them), and per session `session-state/<session
id>/` holding `events.jsonl` (its events, one JSON record a line, written from the first prompt on),
`workspace.yaml` (its metadata: `name` is the title its session list shows, the first prompt unless the person
named the session) and `inuse.<pid>.lock` while a process holds the session (left behind when that process is
killed). Every value read here was written by someone else: a small file is read only up to a bound, a name only
as a single line of bounded length.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from lunavect.core.ids import is_session_id
from lunavect.files.tail import read_small

COPILOT_DIR = ".copilot"
HOOKS_DIR = "hooks"
SESSIONS_DIR = "session-state"
EVENTS_FILE = "events.jsonl"
WORKSPACE_FILE = "workspace.yaml"
# A workspace.yaml larger than this is no file Copilot CLI wrote.
MAX_WORKSPACE_BYTES = 64 << 10
MAX_NAME_CHARS = 1000


def home(environ: dict[str, str] | None = None) -> Path:
    """`$COPILOT_HOME`, else `~/.copilot` (Copilot CLI's own `copilot help environment`)."""
    env = os.environ if environ is None else environ
    named = env.get("COPILOT_HOME", "").strip()
    if named.startswith("/"):
        return Path(named)
    return Path(env.get("HOME") or os.path.expanduser("~")) / COPILOT_DIR


def hooks_dir() -> Path:
    return home() / HOOKS_DIR


def sessions_dir() -> Path:
    return home() / SESSIONS_DIR


def events_files(root: Path | None = None) -> list[tuple[str, os.stat_result]]:
    """Every session's events file (`session-state/<id>/events.jsonl`), with its stat, newest first."""
    found: list[tuple[str, os.stat_result]] = []
    try:
        folders = list(os.scandir(root or sessions_dir()))
    except OSError:
        return found
    for folder in folders:
        if not is_session_id(folder.name) or not folder.is_dir(follow_symlinks=False):
            continue
        path = os.path.join(folder.path, EVENTS_FILE)
        try:
            st = os.stat(path, follow_symlinks=False)
        except OSError:
            continue
        found.append((path, st))
    found.sort(key=lambda item: -item[1].st_mtime)
    return found


def is_events_file(path: str, root: Path | None = None) -> bool:
    """A session's events file: `<root>/<session id>/events.jsonl`, nothing deeper."""
    folder, name = os.path.split(path)
    parent, session = os.path.split(folder)
    return name == EVENTS_FILE and is_session_id(session) and parent == str(root or sessions_dir())


def session_of(path: str) -> str:
    """The session an events file (or any file of its folder) belongs to: its folder's name."""
    return os.path.basename(os.path.dirname(path))


@dataclass(frozen=True)
class Workspace:
    """What a session's workspace.yaml says, as lunavect needs it."""

    name: str | None = None
    cwd: str | None = None


def workspace(session_folder: str) -> Workspace:
    """The session's workspace.yaml, read to its name and folder; an unreadable file says nothing."""
    data = read_small(os.path.join(session_folder, WORKSPACE_FILE), MAX_WORKSPACE_BYTES)
    if data is None:
        return Workspace()
    values = _top_level(data.decode("utf-8", "replace"))
    cwd = values.get("cwd")
    return Workspace(values.get("name"), cwd if cwd and cwd.startswith("/") else None)


def _top_level(text: str) -> dict[str, str]:
    """The top-level `key: scalar` lines of the small YAML file Copilot CLI writes (plain, single- or
    double-quoted scalars on one line). A value in another form (a block, a flow collection) is left out."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        key, colon, rest = line.partition(":")
        if not colon or not key or key != key.strip() or " " in key:
            continue
        value = _scalar(rest.strip())
        if value is not None and len(value) <= MAX_NAME_CHARS and "\n" not in value:
            values.setdefault(key, value)
    return values


def _scalar(text: str) -> str | None:
    if text.startswith("'"):
        # Single-quoted: the only escape is a doubled quote.
        return text[1:-1].replace("''", "'") if len(text) >= 2 and text.endswith("'") else None
    if text.startswith('"'):
        try:
            value = json.loads(text)  # YAML's double-quoted escapes agree with JSON's for what it writes
        except ValueError:
            return None
        return value if isinstance(value, str) else None
    if not text or text[0] in "|>[{&*!%@`#":
        return None
    return text.split(" #", 1)[0].rstrip()


def holders(session_folder: str) -> list[int]:
    """The pids of the processes that hold the session open (`inuse.<pid>.lock`; a killed one's stays)."""
    try:
        names = os.listdir(session_folder)
    except OSError:
        return []
    pids: list[int] = []
    for name in names:
        middle = name.removeprefix("inuse.").removesuffix(".lock")
        if name.startswith("inuse.") and name.endswith(".lock") and middle.isdigit() and len(middle) < 10:
            pids.append(int(middle))
    return sorted(pids)
