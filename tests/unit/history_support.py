"""Long histories for the unit tests: copies of the real transcripts and rollouts of shared/data, each with a
fresh id, dated in the past (nothing synthesised but ids and file times). Shared by the scale and pace tests."""

from __future__ import annotations

import os
import re
import time
import uuid
from pathlib import Path

from unit_support import shared_data_dir

DATA = shared_data_dir()
_SESSION_ID = re.compile(rb'"sessionId":"([0-9a-f-]{36})"')
_THREAD_ID = re.compile(rb'"id":"([0-9a-f-]{36})"')


def claude_history(config: Path, copies: int) -> dict[str, Path]:
    """`copies` copies of every real transcript, each a session of its own, the newest a day old."""
    sources = sorted(p for p in (DATA / "claude").glob("*/*.jsonl"))
    made: dict[str, Path] = {}
    for index in range(copies * len(sources)):
        data = sources[index % len(sources)].read_bytes()
        session = str(uuid.uuid4())
        for old in set(_SESSION_ID.findall(data)):
            data = data.replace(old, session.encode())
        folder = config / "projects" / f"-home-user-project-{index % 5}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{session}.jsonl"
        path.write_bytes(data)
        stamp = time.time() - 86400 * (1 + index)
        os.utime(path, (stamp, stamp))
        made[session] = path
    return made


def codex_history(codex_home: Path, copies: int) -> dict[str, Path]:
    """`copies` copies of every real rollout, in the day folders of the past days (within the recent window)."""
    sources = sorted((DATA / "codex").rglob("rollout-*.jsonl"))
    made: dict[str, Path] = {}
    for index in range(copies * len(sources)):
        data = sources[index % len(sources)].read_bytes()
        old = _THREAD_ID.search(data.split(b"\n", 1)[0])
        assert old is not None
        thread = str(uuid.uuid4())
        stamp = time.time() - 3600 * (2 + 20 * index)
        local = time.localtime(stamp)
        day = codex_home / "sessions" / time.strftime("%Y/%m/%d", local)
        day.mkdir(parents=True, exist_ok=True)
        path = day / f"rollout-{time.strftime('%Y-%m-%dT%H-%M-%S', local)}-{thread}.jsonl"
        path.write_bytes(data.replace(old.group(1), thread.encode()))
        os.utime(path, (stamp, stamp))
        made[thread] = path
    return made
