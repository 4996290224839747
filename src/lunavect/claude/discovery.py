"""Which Claude Code transcripts to look at on a collector tick, cheaply.

Transcripts live at `projects/<folder>/<session>.jsonl`; a person may have thousands, nearly all of them
old. Every one is listed and stat'ed at a sweep every FULL_SWEEP_S; between sweeps only the hot ones are:
those written lately, those in a folder whose mtime changed (a new file changes it), and those of sessions
the live catalog names. This only decides what to stat: each file's cursor says whether anything is new.
"""

from __future__ import annotations

import os
import re
import stat
import time
from collections.abc import Iterable
from pathlib import Path

FULL_SWEEP_S = 10.0
HOT_S = 900.0
SESSION_RE = re.compile(r"^[0-9A-Za-z][0-9A-Za-z_-]{7,127}$")
# The client names a project's folder after its cwd, every non-alphanumeric character as '-'.
_SLUG_RE = re.compile(r"[^A-Za-z0-9]")

Found = tuple[str, str, os.stat_result]  # (path, session id, stat)


def _mtime(path: str) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


def _stat(path: str) -> os.stat_result | None:
    """A regular file's stat (following links, so an alias is known by its identity), or None."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st if stat.S_ISREG(st.st_mode) else None


def project_folders(root: Path) -> list[str]:
    try:
        return [entry.path for entry in os.scandir(root / "projects") if entry.is_dir()]
    except OSError:
        return []


def sessions_in(folder: str) -> list[tuple[str, str]]:
    """The session transcripts of one project folder, as (path, session id); subagents' files are not."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    found = []
    for entry in entries:
        name = entry.name
        if not name.endswith(".jsonl") or name.startswith("agent-"):
            continue
        session_id = name[: -len(".jsonl")]
        if SESSION_RE.match(session_id):
            found.append((entry.path, session_id))
    return found


def stat_each(candidates: dict[str, str]) -> list[Found]:
    """Each regular file once (an alias is known by its identity), newest first."""
    files = []
    identities: set[tuple[int, int]] = set()
    for path, session_id in candidates.items():
        st = _stat(path)
        if st is None or (st.st_dev, st.st_ino) in identities:
            continue
        identities.add((st.st_dev, st.st_ino))
        files.append((path, session_id, st))
    files.sort(key=lambda item: item[2].st_mtime_ns, reverse=True)
    return files


def transcript_path(root: Path, cwd: str, session_id: str) -> str:
    return str(root / "projects" / _SLUG_RE.sub("-", cwd) / f"{session_id}.jsonl")


class TranscriptFinder:
    """Remembers, between sweeps, every transcript's mtime and every folder's, to know what is hot."""

    def __init__(self) -> None:
        self._swept_at: float | None = None
        self._files: dict[str, tuple[str, float]] = {}
        self._folders: dict[str, int | None] = {}

    def find(self, root: Path, running: Iterable[tuple[str, str]] = ()) -> tuple[list[Found], bool]:
        """The transcripts to look at, newest first, and whether this was a full sweep. `running` are the
        (cwd, session id) of sessions the live catalog names."""
        clock = time.monotonic()
        if self._swept_at is None or clock - self._swept_at >= FULL_SWEEP_S:
            return self._sweep(root, clock), True
        projects = str(root / "projects")
        wall = time.time()
        hot = {path: session_id for path, (session_id, mtime) in self._files.items() if wall - mtime < HOT_S}
        changed = [folder for folder, known in self._folders.items() if folder != projects and _mtime(folder) != known]
        if _mtime(projects) != self._folders.get(projects):
            self._folders[projects] = _mtime(projects)
            changed += [folder for folder in project_folders(root) if folder not in self._folders]
        for folder in changed:
            self._folders[folder] = _mtime(folder)
            for path, session_id in sessions_in(folder):
                hot.setdefault(path, session_id)
        for cwd, session_id in running:
            if cwd and SESSION_RE.match(session_id):
                hot.setdefault(transcript_path(root, cwd, session_id), session_id)
        files = stat_each(hot)
        for path, session_id, st in files:
            self._files[path] = (session_id, st.st_mtime)
        return files, False

    def _sweep(self, root: Path, clock: float) -> list[Found]:
        projects = str(root / "projects")
        self._folders = {projects: _mtime(projects)}
        candidates: dict[str, str] = {}
        for folder in project_folders(root):
            self._folders[folder] = _mtime(folder)
            candidates.update(sessions_in(folder))
        files = stat_each(candidates)
        self._files = {path: (session_id, st.st_mtime) for path, session_id, st in files}
        self._swept_at = clock
        return files
