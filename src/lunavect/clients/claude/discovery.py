"""Which Claude Code transcripts to look at on a collector tick, cheaply.

Transcripts live at `projects/<folder>/<session>.jsonl`; a person may have thousands, nearly all of them
old and finished. Every one is listed and stat'ed once, at the first tick. After that a tick stats only the hot
ones (written lately, in a folder whose mtime changed, which a new file does, or named by the live catalog),
those the reader still owes a read, and its share of a slow safety sweep that stats every known file once
every SWEEP_S: so a tick's work follows what changed, not how many sessions a person ever ran. This only
decides what to stat: each file's cursor says whether anything is new.
"""

from __future__ import annotations

import os
import re
import stat
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from lunavect.core.ids import is_session_id

# Every known transcript is stat'ed once in this period, a share at each tick, and every folder relisted after.
SWEEP_S = 300.0
HOT_S = 900.0
# `\Z`, not `$`: `$` also matches before a final newline, and a file named `<id>\n.jsonl` names no session.
SESSION_RE = re.compile(r"\A[0-9A-Za-z][0-9A-Za-z_-]{7,127}\Z")
# The client names a project's folder after its cwd, every non-alphanumeric character as '-'.
_SLUG_RE = re.compile(r"[^A-Za-z0-9]")

Found = tuple[str, str, os.stat_result]  # (path, session id, stat)


def is_transcript_id(name: str) -> bool:
    """True when a transcript's file name (without `.jsonl`) is a session id the client writes: the one rule of
    ids (core/ids.py), in the shape Claude Code's names take. Nothing else is read, so no row and no path is
    built from it."""
    return SESSION_RE.match(name) is not None and is_session_id(name)


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
        if is_transcript_id(session_id):
            found.append((entry.path, session_id))
    return found


def transcript_path(root: Path, cwd: str, session_id: str) -> str:
    return str(root / "projects" / _SLUG_RE.sub("-", cwd) / f"{session_id}.jsonl")


@dataclass
class Look:
    """What one tick looks at: the files to stat'ed (newest first) and, after a relisting of every folder,
    every transcript path there is (so the caller can forget the cursors of deleted ones)."""

    files: list[Found]
    everything: set[str] | None = None


class TranscriptFinder:
    """Remembers every transcript's mtime and every folder's, to know what is hot, and spreads the safety
    sweep: each call stats its share of the known files, so each is stat'ed once every SWEEP_S."""

    def __init__(self) -> None:
        self._listed_at: float | None = None
        self._called_at = 0.0
        self._files: dict[str, tuple[str, float]] = {}
        # The files written within HOT_S when last stat'ed: a tick stats these without going through all.
        self._recent: dict[str, str] = {}
        self._folders: dict[str, int | None] = {}
        # Each file identity belongs to the first path found for it: an alias is never a second transcript.
        self._owners: dict[tuple[int, int], str] = {}
        self._order: list[str] = []
        self._next = 0
        self._credit = 0.0

    @property
    def known(self) -> int:
        """How many transcripts it knows."""
        return len(self._files)

    def find(
        self,
        root: Path,
        running: Iterable[tuple[str, str]] = (),
        changed: set[str] | None = None,
    ) -> Look:
        """The transcripts to look at, newest first. `running` are the (cwd, session id) of sessions the
        live catalog names; `changed` the paths the operating system says changed since the last call (None
        when it cannot say: then the files written lately and the folders whose mtime changed are stat'ed)."""
        clock = time.monotonic()
        if self._listed_at is None:
            return self._relist(root, clock, first=True)
        if changed is None:
            candidates = self._hot(root)
        else:  # the files written lately are stat'ed still: a change is told a moment after it happens
            candidates = self._recently_written() | self._told(root, changed)
        for cwd, session_id in running:
            if cwd and is_transcript_id(session_id):
                candidates.setdefault(transcript_path(root, cwd, session_id), session_id)
        elapsed = clock - self._called_at
        self._credit += len(self._order) * (elapsed / SWEEP_S if SWEEP_S > 0 else 1.0)
        self._called_at = clock
        share = min(int(self._credit), len(self._order) - self._next)
        self._credit -= share
        for path in self._order[self._next : self._next + share]:
            candidates.setdefault(path, self._files[path][0])
        self._next += share
        if self._next >= len(self._order) and clock - self._listed_at >= SWEEP_S:
            look = self._relist(root, clock, first=False)
            candidates.update({path: session_id for path, session_id, _ in look.files})
            return Look(self._stat(candidates), look.everything)
        return Look(self._stat(candidates))

    def _hot(self, root: Path) -> dict[str, str]:
        """Files written lately, and every file of a folder whose mtime changed (a new file changes it)."""
        projects = str(root / "projects")
        hot = self._recently_written()
        changed = [folder for folder, known in self._folders.items() if folder != projects and _mtime(folder) != known]
        if _mtime(projects) != self._folders.get(projects):
            self._folders[projects] = _mtime(projects)
            changed += [folder for folder in project_folders(root) if folder not in self._folders]
        for folder in changed:
            self._folders[folder] = _mtime(folder)
            for path, session_id in sessions_in(folder):
                hot.setdefault(path, session_id)
        return hot

    def _recently_written(self) -> dict[str, str]:
        wall = time.time()
        for path in [path for path in self._recent if wall - self._files.get(path, ("", 0.0))[1] >= HOT_S]:
            del self._recent[path]
        return dict(self._recent)

    def _told(self, root: Path, changed: set[str]) -> dict[str, str]:
        """The transcripts among the changed paths, and those of a project folder new since the last call."""
        projects = str(root / "projects")
        told: dict[str, str] = {}
        for path in changed:
            folder, name = os.path.split(path)
            if os.path.dirname(folder) == projects and name.endswith(".jsonl") and not name.startswith("agent-"):
                session_id = name[: -len(".jsonl")]
                if is_transcript_id(session_id):
                    told[path] = session_id
            elif folder == projects and path not in self._folders:
                self._folders[path] = _mtime(path)
                told.update(sessions_in(path))
        return told

    def _stat(self, candidates: dict[str, str]) -> list[Found]:
        files = []
        for path, session_id in candidates.items():
            st = _stat(path)
            if st is None:
                continue
            owner = self._owners.setdefault((st.st_dev, st.st_ino), path)
            if owner != path and owner in self._files:
                continue
            self._owners[(st.st_dev, st.st_ino)] = path
            if path not in self._files:
                self._order.append(path)
            self._files[path] = (session_id, st.st_mtime)
            if time.time() - st.st_mtime < HOT_S:
                self._recent[path] = session_id
            files.append((path, session_id, st))
        files.sort(key=lambda item: item[2].st_mtime_ns, reverse=True)
        return files

    def _relist(self, root: Path, clock: float, first: bool) -> Look:
        """List every folder: a first call stats every file; later ones only the files not known yet."""
        projects = str(root / "projects")
        self._folders = {projects: _mtime(projects)}
        candidates: dict[str, str] = {}
        for folder in project_folders(root):
            self._folders[folder] = _mtime(folder)
            candidates.update(sessions_in(folder))
        everything = set(candidates)
        for path in [path for path in self._files if path not in everything]:
            del self._files[path]
            self._recent.pop(path, None)
        self._owners = {key: path for key, path in self._owners.items() if path in everything}
        new = candidates if first else {path: sid for path, sid in candidates.items() if path not in self._files}
        files = self._stat(new)
        self._order = [path for path in self._files]
        self._next, self._credit = 0, 0.0
        self._listed_at = self._called_at = clock
        return Look(files, everything)
