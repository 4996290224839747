"""Long histories for the unit tests: copies of the real transcripts and rollouts of shared/data, each with a
fresh id, dated in the past (nothing synthesised but ids and file times). Shared by the scale and pace tests."""

from __future__ import annotations

import os
import re
import time
import uuid
from pathlib import Path

import pytest
from unit_support import shared_data_dir

from lunavect.collector.tick import Collector
from lunavect.files.changed import ChangedFiles

DATA = shared_data_dir()
_SESSION_ID = re.compile(rb'"sessionId":"([0-9a-f-]{36})"')
_THREAD_ID = re.compile(rb'"id":"([0-9a-f-]{36})"')


def transcript_copy(config: Path, data: bytes, project: int, stamp: float) -> tuple[str, Path]:
    """A real transcript again as a session of its own: every session id in it made one fresh id, in project
    folder number `project`, its file dated `stamp`."""
    session = str(uuid.uuid4())
    for old in set(_SESSION_ID.findall(data)):
        data = data.replace(old, session.encode())
    folder = config / "projects" / f"-home-user-project-{project}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session}.jsonl"
    path.write_bytes(data)
    os.utime(path, (stamp, stamp))
    return session, path


def rollout_copy(codex_home: Path, data: bytes, stamp: float) -> tuple[str, Path]:
    """A real rollout again as a thread of its own (a fresh id in its first record and its name), in the day
    folder of `stamp`, its file dated then."""
    old = _THREAD_ID.search(data.split(b"\n", 1)[0])
    assert old is not None
    thread = str(uuid.uuid4())
    local = time.localtime(stamp)
    day = codex_home / "sessions" / time.strftime("%Y/%m/%d", local)
    day.mkdir(parents=True, exist_ok=True)
    path = day / f"rollout-{time.strftime('%Y-%m-%dT%H-%M-%S', local)}-{thread}.jsonl"
    path.write_bytes(data.replace(old.group(1), thread.encode()))
    os.utime(path, (stamp, stamp))
    return thread, path


def claude_history(config: Path, copies: int) -> dict[str, Path]:
    """`copies` copies of every real transcript, each a session of its own, the newest a day old."""
    sources = sorted(p for p in (DATA / "claude").glob("*/*.jsonl"))
    if not sources:  # a history of nothing would prove nothing: the test waits for the real files
        pytest.skip(f"the shared real transcripts are not at {DATA / 'claude'}")
    made: dict[str, Path] = {}
    for index in range(copies * len(sources)):
        data = sources[index % len(sources)].read_bytes()
        session, path = transcript_copy(config, data, index % 5, time.time() - 86400 * (1 + index))
        made[session] = path
    return made


def codex_history(codex_home: Path, copies: int) -> dict[str, Path]:
    """`copies` copies of every real rollout, in the day folders of the past days (within the recent window)."""
    sources = sorted((DATA / "codex").rglob("rollout-*.jsonl"))
    if not sources:
        pytest.skip(f"the shared real rollouts are not at {DATA / 'codex'}")
    made: dict[str, Path] = {}
    for index in range(copies * len(sources)):
        data = sources[index % len(sources)].read_bytes()
        thread, path = rollout_copy(codex_home, data, time.time() - 3600 * (2 + 20 * index))
        made[thread] = path
    return made


def tick_until_watched(collector: Collector, watches: list[ChangedFiles | None]) -> None:
    """Ticks the collector until the operating system's change notifications of every source run (until then
    a tick looks its own way, so nothing a test counts would be what a collector at rest does)."""
    deadline = time.monotonic() + 30
    while not all(w is not None and w._armed for w in watches) and time.monotonic() < deadline:
        collector.tick()
        time.sleep(0.05)
    assert all(w is not None and w._armed for w in watches), "the change notifications never started"
