"""Build a heavy user's history from the real transcripts and rollouts of `shared/data` (standard library only).

Each Claude session is a copy of one real transcript with a fresh session id, moved to one of 50 project
folders (its `cwd` rewritten to match) and dated back over a year, newest first; each Codex rollout is a copy of
one real rollout with a fresh thread id, in the day folder of a date spread over 31 days. Nothing is
synthesised: only ids, folders and file times change, so readers meet the records real clients write.
"""

from __future__ import annotations

import os
import re
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

PROJECTS = 50
YEAR_S = 365 * 86400.0
CODEX_DAYS = 31
_SESSION_ID = re.compile(rb'"sessionId":"([0-9a-f-]{36})"')
_CWD = re.compile(rb'"cwd":"([^"]*)"')
_THREAD = re.compile(rb'"id":"([0-9a-f-]{36})"')


@dataclass
class History:
    claude: list[str] = field(default_factory=list)  # session ids, newest first
    codex: list[str] = field(default_factory=list)  # thread ids, newest first
    claude_paths: list[str] = field(default_factory=list)
    bytes: int = 0


def _sources(folder: Path, pattern: str) -> list[bytes]:
    return [p.read_bytes() for p in sorted(folder.rglob(pattern)) if "subagents" not in p.parts]


def _rewrite(data: bytes, old_ids: set[bytes], new_id: bytes, cwd: bytes) -> bytes:
    for old in old_ids:
        data = data.replace(old, new_id)
    return _CWD.sub(b'"cwd":"' + cwd + b'"', data)


def build(data_dir: Path, claude_dir: Path, codex_home: Path, sessions: int, rollouts: int = 300) -> History:
    """Write `sessions` Claude transcripts and `rollouts` Codex rollouts; returns their ids."""
    history = History()
    now = time.time()
    transcripts = _sources(data_dir / "claude", "*.jsonl")
    originals = _sources(data_dir / "codex", "rollout-*.jsonl")
    for wanted, found, what in ((sessions, transcripts, "Claude Code transcripts"), (rollouts, originals, "rollouts")):
        if wanted and not found:
            raise SystemExit(f"no {what} under {data_dir}: set LUNAVECT_SHARED_DATA to the shared/data folder")
    for index in range(sessions):
        source = transcripts[index % len(transcripts)]
        new_id = str(uuid.uuid4())
        project = f"/home/user/work/project-{index % PROJECTS:02d}"
        folder = claude_dir / "projects" / re.sub(r"[^A-Za-z0-9]", "-", project)
        folder.mkdir(parents=True, exist_ok=True)
        data = _rewrite(source, set(_SESSION_ID.findall(source)), new_id.encode(), project.encode())
        path = folder / f"{new_id}.jsonl"
        path.write_bytes(data)
        stamp = now - 3600 - index * YEAR_S / max(sessions, 1)
        os.utime(path, (stamp, stamp))
        history.claude.append(new_id)
        history.claude_paths.append(str(path))
        history.bytes += len(data)
    for index in range(rollouts):
        source = originals[index % len(originals)]
        header = source.split(b"\n", 1)[0]
        old = _THREAD.search(header)
        assert old is not None, "a rollout without a thread id in its header"
        new_id = str(uuid.uuid4())
        stamp = now - 3600 - index * CODEX_DAYS * 86400.0 / max(rollouts, 1)
        local = time.localtime(stamp)
        day = codex_home / "sessions" / time.strftime("%Y/%m/%d", local)
        day.mkdir(parents=True, exist_ok=True)
        project = f"/home/user/work/project-{index % PROJECTS:02d}"
        data = _rewrite(source, {old.group(1)}, new_id.encode(), project.encode())
        path = day / f"rollout-{time.strftime('%Y-%m-%dT%H-%M-%S', local)}-{new_id}.jsonl"
        path.write_bytes(data)
        os.utime(path, (stamp, stamp))
        history.codex.append(new_id)
        history.bytes += len(data)
    return history
