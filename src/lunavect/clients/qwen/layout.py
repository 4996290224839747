"""Where Qwen Code keeps its files.

Observed with Qwen Code 0.24.4 (tests/clients/NOTES.md): its configuration lives in `~/.qwen` (`$QWEN_HOME` takes
its place, `~`-relative or absolute), `settings.json` holding its hooks among the person's settings; what a run
writes (its runtime output: sessions, chats) lives there too unless `$QWEN_RUNTIME_DIR` names another folder.
Each session's chat is `projects/<the folder's path, every character not a letter or digit made '-'>/chats/
<session id>.jsonl` (with `<session id>.runtime.json` beside it, the launch's facts: never read), and each
record of it names the folder (`cwd`). `sessions/<pid>.json` is its live registry of running sessions, removed
at a clean exit; a chat file is the surer witness, and the hooks name the process.

Every value read here was written by someone else: the folder a record names is taken only as an absolute path
of bounded length.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

QWEN_DIR = ".qwen"
PROJECTS_DIR = "projects"
CHATS_DIR = "chats"
# `<session id>.jsonl`: a UUID.
CHAT_NAME = re.compile(r"^[0-9A-Za-z][0-9A-Za-z_-]{7,127}\.jsonl$")
MAX_PATH_CHARS = 4096


def _base(env: dict[str, str] | os._Environ[str]) -> str:
    return env.get("HOME") or os.path.expanduser("~")


def home(environ: dict[str, str] | None = None) -> Path:
    """`$QWEN_HOME` (`~` and `~/…` under the person's home), else `$HOME/.qwen` (Qwen Code's own
    `resolveQwenHome`)."""
    env = os.environ if environ is None else environ
    configured = env.get("QWEN_HOME")
    if not configured:
        return Path(_base(env)) / QWEN_DIR
    if configured == "~":
        return Path(_base(env))
    if configured.startswith("~/"):
        return Path(_base(env)) / configured[2:]
    return Path(configured).absolute()


def runtime_dir(environ: dict[str, str] | None = None) -> Path:
    """Where its sessions' files are written: `$QWEN_RUNTIME_DIR`, else its home."""
    env = os.environ if environ is None else environ
    configured = env.get("QWEN_RUNTIME_DIR")
    return Path(configured).expanduser().absolute() if configured else home(environ)


def settings_path() -> Path:
    return home() / "settings.json"


def projects_dir() -> Path:
    return runtime_dir() / PROJECTS_DIR


def is_chat_name(name: str) -> bool:
    return CHAT_NAME.match(name) is not None


def session_of(path: str) -> str:
    """The session id a chat file's name carries."""
    return os.path.basename(path).removesuffix(".jsonl")


def chat_files(root: Path | None = None) -> list[tuple[str, os.stat_result]]:
    """Every session's chat file under `projects/<folder>/chats/`, with its stat, newest first."""
    found: list[tuple[str, os.stat_result]] = []
    try:
        folders = list(os.scandir(root or projects_dir()))
    except OSError:
        return found
    for folder in folders:
        try:
            entries = list(os.scandir(os.path.join(folder.path, CHATS_DIR)))
        except OSError:
            continue
        for entry in entries:
            if not is_chat_name(entry.name):
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if entry.is_file(follow_symlinks=False):
                found.append((entry.path, st))
    found.sort(key=lambda item: -item[1].st_mtime)
    return found


def folder(value: object) -> str | None:
    """A project folder a record names: an absolute path of bounded length."""
    if isinstance(value, str) and value.startswith("/") and len(value) <= MAX_PATH_CHARS and "\0" not in value:
        return value
    return None
