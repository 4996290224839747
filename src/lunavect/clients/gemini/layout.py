"""Where Gemini CLI keeps its files, and which project folder each of its temporary folders belongs to.

Observed with Gemini CLI 0.61.0 (tests/clients/NOTES.md): everything lives in `~/.gemini` (`$GEMINI_CLI_HOME`
takes the place of `~`): `settings.json` (its hooks among the person's settings), `projects.json`
(`{"projects": {"<folder>": "<slug>"}}`), and per project `tmp/<slug>/` holding `.project_root` (the folder) and
`chats/session-<YYYY-MM-DDTHH-MM>-<first 8 of the id>.jsonl`, one file per session (`.json`, one JSON object,
before 0.39). A session's sub-agents
write `chats/<session id>/<agent id>.jsonl`: internal agents, never a session of their own.

Every value read here was written by someone else: the folder a slug names is taken only as an absolute path
of bounded length, from files of bounded size.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from lunavect.files.tail import read_small

GEMINI_DIR = ".gemini"
CHATS_DIR = "chats"
# `session-2026-12-01T16-41-f9986e0a.jsonl`: the start in UTC to the minute, and the id's first 8 characters;
# `.json` for the whole-file chats of versions before 0.39 (`legacy.py`).
CHAT_NAME = re.compile(r"^session-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-[0-9A-Za-z_-]{1,8}\.jsonl?$")
# A projects.json or .project_root larger than this is no file Gemini CLI wrote.
MAX_SMALL_FILE = 1 << 20
MAX_PATH_CHARS = 4096


def home(environ: dict[str, str] | None = None) -> Path:
    """`$GEMINI_CLI_HOME/.gemini`, else `$HOME/.gemini` (Gemini CLI's own `homedir()`)."""
    env = os.environ if environ is None else environ
    base = env.get("GEMINI_CLI_HOME") or env.get("HOME") or os.path.expanduser("~")
    return Path(base) / GEMINI_DIR


def settings_path() -> Path:
    return home() / "settings.json"


def tmp_dir() -> Path:
    return home() / "tmp"


def is_chat_name(name: str) -> bool:
    return CHAT_NAME.match(name) is not None


def is_legacy(path: str) -> bool:
    """A whole-file chat of a version before 0.39 (`session-*.json`)."""
    return path.endswith(".json")


def chat_files(root: Path | None = None) -> list[tuple[str, os.stat_result]]:
    """Every session's chat file under `tmp/<slug>/chats/` (sub-agents' folders below it are not read), with
    its stat, newest first."""
    found: list[tuple[str, os.stat_result]] = []
    tmp = root or tmp_dir()
    try:
        slugs = list(os.scandir(tmp))
    except OSError:
        return found
    for slug in slugs:
        chats = os.path.join(slug.path, CHATS_DIR)
        try:
            entries = list(os.scandir(chats))
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


def _small_text(path: Path) -> str | None:
    data = read_small(path, MAX_SMALL_FILE)
    return data.decode("utf-8", "replace") if data is not None else None


def _folder(value: object) -> str | None:
    if isinstance(value, str) and value.startswith("/") and len(value) <= MAX_PATH_CHARS and "\0" not in value:
        return value
    return None


def project_folder(chat_path: str, cache: dict[str, str | None] | None = None) -> str | None:
    """The project folder of a chat file: its slug folder's `.project_root`, else the slug `projects.json`
    maps to a folder. Cached per slug folder in `cache` (the folder of a slug never changes)."""
    slug_dir = os.path.dirname(os.path.dirname(chat_path))
    if cache is not None and slug_dir in cache:
        return cache[slug_dir]
    text = _small_text(Path(slug_dir) / ".project_root")
    folder = _folder(text.strip()) if text is not None else None
    if folder is None:
        slug = os.path.basename(slug_dir)
        folder = next((root for root, named in projects(Path(slug_dir).parent.parent).items() if named == slug), None)
    if cache is not None:
        cache[slug_dir] = folder
    return folder


def projects(gemini_home: Path | None = None) -> dict[str, str]:
    """`projects.json`: each project folder and its slug (the name of its temporary folder)."""
    text = _small_text((gemini_home or home()) / "projects.json")
    try:
        data = json.loads(text) if text else None
    except ValueError:
        return {}
    table = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(table, dict):
        return {}
    return {
        root: slug
        for root, slug in list(table.items())[:10_000]
        if _folder(root) and isinstance(slug, str) and 0 < len(slug) <= 256 and "/" not in slug
    }
