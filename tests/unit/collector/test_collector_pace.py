"""A first start's whole reads give way to hook events: one that arrives between two reads is taken at once,
without reading, while the reading of the history goes on afterwards within its share of a core."""

from __future__ import annotations

import json
import time

import pytest
from history_support import claude_history
from unit_support import collector_thread

from lunavect import paths, store
from lunavect.clients.claude.files_source import ClaudeFilesSource
from lunavect.collector import loop as collector_loop
from lunavect.collector import pace
from lunavect.collector.tick import Collector

SESSION = "5e55105e-0000-4000-8000-0000000000aa"
PROMPT = {"session_id": SESSION, "hook_event_name": "UserPromptSubmit", "cwd": "/tmp/p", "prompt": "x"}


def _state(conn) -> str | None:
    row = conn.execute("SELECT data FROM snapshot WHERE id = ?", (f"claude:{SESSION}",)).fetchone()
    return json.loads(row[0])["state"] if row else None


@pytest.mark.process
def test_a_hook_event_during_the_whole_reads_is_taken_between_two_reads(iso_env, monkeypatch):
    claude_history(paths.claude_config_dir(), copies=3)
    # Slow whole reads: 1 MB a tick, and long pauses between them (a hundred times the tick).
    monkeypatch.setattr(pace, "READING_SHARE", 0.01)
    monkeypatch.setattr(
        collector_loop,
        "default_sources",
        lambda: [ClaudeFilesSource(budget=1 << 20, processes=dict, one_process=lambda pid: None)],
    )
    ticks: list[tuple[bool, str | None]] = []
    real_tick = Collector.tick

    def counting(self: Collector, now: float | None = None, beat: bool = True, poll: bool = True) -> str | None:
        backlog = real_tick(self, now, beat, poll)
        ticks.append((poll, backlog))
        return backlog

    monkeypatch.setattr(Collector, "tick", counting)
    with collector_thread() as conn:
        deadline = time.monotonic() + 30
        # Three reading ticks: the collector is in its whole reads, nearly all of its time between two of them.
        while not (len(ticks) >= 3 and ticks[-1][1] == "reading") and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(ticks) >= 3 and ticks[-1][1] == "reading", "the whole reads never began"
        time.sleep(0.05)
        assert iso_env.hook(PROMPT).returncode == 0
        while _state(conn) != "working" and time.monotonic() < deadline:
            time.sleep(0.01)
        assert _state(conn) == "working", "the hook event was never taken"
        while not any(not poll for poll, _ in ticks) and time.monotonic() < deadline:
            time.sleep(0.01)  # the tick that took it is counted once it returns
        spool_only = [backlog for poll, backlog in ticks if not poll]
        assert spool_only and spool_only[0] == "reading"  # taken between two reads, the reading not over
        taken = ticks.index((False, "reading"))
        while not any(poll for poll, _ in ticks[taken:]) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert any(poll for poll, _ in ticks[taken:]), "the whole reads did not go on"


def test_a_hook_event_arriving_during_a_whole_read_stops_it_at_the_next_file(tmp_path, monkeypatch):
    from lunavect.clients.claude import files_source
    from lunavect.shim import entry

    config = tmp_path / "claude"
    claude_history(config, copies=2)
    monkeypatch.setenv("LUNAVECT_HOME", str(tmp_path / "lv"))
    conn = store.connect(paths.store_path())
    source = ClaudeFilesSource(config, budget=1 << 40, processes=dict, one_process=lambda pid: None)
    collector = Collector(conn, spool_dir=paths.ensure_private_dir(paths.spool_dir()), sources=[source])
    backlog = collector.tick()
    while backlog == "listing":  # the first looks have a time budget per tick: a loaded machine takes more
        backlog = collector.tick()
    assert backlog == "reading"  # every session listed; whole reads next, all within one budget
    read: list[str] = []
    real_read = files_source.read_transcript

    def reading(conn, path, *args, **kwargs):
        if not read:  # the person types while the first whole read runs
            entry.handle("claude", json.dumps(PROMPT).encode(), None)
        read.append(path)
        return real_read(conn, path, *args, **kwargs)

    monkeypatch.setattr(files_source, "read_transcript", reading)
    assert collector.tick() == "reading"  # stopped at the next file: the rest waits
    assert len(read) == 1
    assert _state(conn) is None  # the event waits for the next tick, which takes it first
    collector.tick()
    assert _state(conn) == "working"
    source.close()
    conn.close()


def test_a_tick_of_whole_reads_rests_for_the_cpu_it_took_not_for_the_wall_clock():
    """A share of a core is CPU time: a tick that waited (for the disk, or for a core other processes had) is
    no reason to rest longer after it. On a loaded machine the wall clock paused the reading for far more than
    its share, and the first test here never saw three reading ticks within its time."""
    beat = pace.Pace()
    share = (1 - pace.READING_SHARE) / pace.READING_SHARE
    started = beat.cpu()
    time.sleep(0.3)  # 0.3 s on the wall clock, next to nothing on the CPU
    assert beat.rest(started) < 0.05 * share
    started = beat.cpu()
    while beat.cpu() < started + 0.1:  # 0.1 s of this thread's CPU
        pass
    assert beat.rest(started) >= 0.1 * share
