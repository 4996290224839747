"""One collector tick: hooks and freshness are published before any source is read."""

from __future__ import annotations

import json

import pytest

from lunavect import store
from lunavect.collector.tick import Collector
from lunavect.evidence.sources import Batch, Source


class WatchingSource(Source):
    """A source that records what the snapshot said when it was asked to read, and then fails."""

    name = "watching"

    def __init__(self) -> None:
        self.seen: list[list[str]] = []

    def poll(self, conn, now):
        self.seen.append([row[0] for row in conn.execute("SELECT state FROM snapshot")])
        raise OSError("the source's file system hung up")


class EmptySource(Source):
    name = "empty"

    def __init__(self) -> None:
        self.polled = 0

    def poll(self, conn, now):
        self.polled += 1
        return Batch()


@pytest.mark.process
def test_hooks_are_published_before_a_source_is_read_and_a_broken_source_stops_nothing(iso_env):
    payload = {"session_id": "tick-1", "hook_event_name": "UserPromptSubmit", "cwd": "/tmp/p", "prompt": "x"}
    assert iso_env.hook(payload).returncode == 0
    conn = store.connect()
    watching, empty = WatchingSource(), EmptySource()
    Collector(conn, sources=[watching, empty]).tick()
    assert watching.seen == [["working"]]
    assert empty.polled == 1
    assert store.counters(conn).get("source.failed.watching") == 1
    state = json.loads(conn.execute("SELECT data FROM snapshot").fetchone()[0])["state"]
    assert state == "working"
