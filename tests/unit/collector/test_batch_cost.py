"""A batch costs what it changed: with 3,000 stored sessions a tick does the same work as with 100.

Each history is made of copies of small real transcripts and rollouts of shared/data (fresh ids, dated in the
past), read by the collector to rest. Then one batch arrives, the same at both sizes: a hook event of one
session, a transcript and a rollout that grow by real records. The tick that takes it is counted, not timed:
the SQL statements it runs, the rows they change (`total_changes`), the virtual machine steps SQLite runs for
them (what a scan of a table would multiply), the files it stats or opens, the sessions it decides and the
stored facts its sources look at. The slow safety sweep, a share of every known file per elapsed second by
design, is pushed out of reach.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from history_support import DATA, rollout_copy, tick_until_watched, transcript_copy

from lunavect import paths, store
from lunavect.clients.claude import discovery, files_source
from lunavect.clients.claude.files_source import ClaudeFilesSource
from lunavect.clients.codex import history
from lunavect.clients.codex.source import CodexSource
from lunavect.collector import setup_probe
from lunavect.collector import tick as collector_module
from lunavect.collector.tick import Collector
from lunavect.files import changed as changed_files
from lunavect.files.changed import ChangedFiles
from lunavect.shim import entry

TRANSCRIPT = DATA / "claude" / "spotter" / "short.jsonl"
ROLLOUT = DATA / "codex" / "localpush" / "rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl"
pytestmark = pytest.mark.skipif(not TRANSCRIPT.is_file(), reason=f"the shared real files are not at {DATA}")


def _history(config: Path, codex_home: Path, sessions: int) -> tuple[list[Path], list[Path]]:
    """`sessions` Claude transcripts and as many Codex rollouts, each a copy of a small real one."""
    transcript, rollout = TRANSCRIPT.read_bytes(), ROLLOUT.read_bytes()
    claude, codex = [], []
    for index in range(sessions):
        stamp = time.time() - 86400 * (2 + index % 300)
        claude.append(transcript_copy(config, transcript, index % 20, stamp)[1])
        codex.append(rollout_copy(codex_home, rollout, stamp)[1])
    return claude, codex


def _count_walks(collector: Collector) -> None:
    """Swap the collector's facts, in it and in its sources' views of them, for a dict that counts walks."""
    original = collector._facts
    looked = LookedAt(original)
    views = [getattr(source, "known", None) or getattr(source, "_known", None) for source in collector.sources]
    for holder in [collector, *views]:
        if getattr(holder, "_facts", None) is original:
            holder._facts = looked
        by_provider = getattr(holder, "_by_provider", None)  # each provider's facts, where the view keeps them
        if by_provider is not None:
            holder._by_provider = {provider: LookedAt(facts) for provider, facts in by_provider.items()}


class Counted:
    """What one tick did: SQL statements and rows changed, SQLite's steps, file system calls, decisions."""

    def __init__(self, conn, monkeypatch) -> None:
        self.conn, self.monkeypatch = conn, monkeypatch
        self.counts: Counter[str] = Counter()

    def __enter__(self) -> Counter[str]:
        counts = self.counts
        changes = self.conn.total_changes

        def step() -> int:
            counts["sqlite steps"] += 1
            return 0

        # Called every few steps of each statement (SQLite counts them statement by statement).
        self.conn.set_progress_handler(step, 10)
        self.conn.set_trace_callback(lambda sql: counts.update(["statements"]))
        for name in ("stat", "open", "scandir", "listdir"):
            self.monkeypatch.setattr(os, name, self._counting(f"os.{name}", getattr(os, name)))
        real_decide = collector_module.decide

        def deciding(*args, **kwargs):
            counts["sessions decided"] += 1
            return real_decide(*args, **kwargs)

        self.monkeypatch.setattr(collector_module, "decide", deciding)
        self._changes = changes
        return counts

    def _counting(self, name, call):
        def wrapper(*args, **kwargs):
            self.counts[name] += 1
            # And by caller, so that a count that differs says where (once, under load on CI: os.stat 56
            # against 9, never seen again).
            self.counts[f"{name} from {_caller()}"] += 1
            return call(*args, **kwargs)

        return wrapper

    def __exit__(self, *exc: object) -> None:
        self.monkeypatch.undo()
        self.conn.set_progress_handler(None, 0)
        self.conn.set_trace_callback(None)
        self.counts["rows changed"] = self.conn.total_changes - self._changes


def _caller() -> str:
    """lunavect's function nearest the call (past pathlib's and os.path's own)."""
    frame = sys._getframe(2)
    while frame.f_back is not None and f"{os.sep}lunavect{os.sep}" not in frame.f_code.co_filename:
        frame = frame.f_back
    return frame.f_code.co_qualname


class LookedAt(dict):
    """The collector's facts by key, counting each one a caller walks over (a batch should walk its own)."""

    counts: Counter[str] | None = None

    def _walked(self, n: int) -> None:
        if LookedAt.counts is not None:
            LookedAt.counts["stored facts walked"] += n

    def items(self):
        self._walked(len(self))
        return super().items()

    def values(self):
        self._walked(len(self))
        return super().values()

    def __iter__(self):
        self._walked(len(self))
        return super().__iter__()


def _one_batch(tmp_path: Path, monkeypatch, sessions: int) -> Counter[str]:
    monkeypatch.setattr(changed_files, "READY_CHECK_MS", 100)
    monkeypatch.setattr(discovery, "SWEEP_S", 1e9)  # the slow safety sweep is not due in this test
    monkeypatch.setattr(history, "SWEEP_S", 1e9)
    monkeypatch.setenv("LUNAVECT_HOME", str(tmp_path / "lv"))
    config, codex_home = tmp_path / "claude", tmp_path / "codex"
    claude_files, codex_files = _history(config, codex_home, sessions)
    env = {"LUNAVECT_CODEX": str(tmp_path / "no-codex"), "PATH": "/nonexistent", "HOME": str(tmp_path)}
    claude = ClaudeFilesSource(config, processes=dict, one_process=lambda pid: None)
    codex = CodexSource(codex_home=codex_home, env=env)
    conn = store.connect(paths.store_path())
    collector = Collector(conn, spool_dir=paths.ensure_private_dir(paths.spool_dir()), sources=[claude, codex])
    _count_walks(collector)
    try:
        while collector.tick() is not None:
            pass
        assert conn.execute("SELECT count(*) FROM snapshot WHERE listed = 1").fetchone()[0] == 2 * sessions
        tick_until_watched(collector, [claude._changes, codex.changes])
        for _ in range(3):
            collector.tick()
        assert collector.at_rest

        # The history was read long enough ago that its events are past the de-duplication window.
        with store.transaction(conn):
            conn.execute("UPDATE events SET stored_at = stored_at - ?", (2 * store.DEDUP_WINDOW_S,))
        collector._pruned_at = None
        collector.tick()  # its prune forgets what the history's reads superseded: once, not per batch

        # One batch: a hook event of one session, and one transcript and one rollout grow.
        session = claude_files[0].stem
        payload = {"session_id": session, "hook_event_name": "PreToolUse", "cwd": "/home/user/project-0"}
        payload.update(tool_name="Bash", tool_input={"command": "true"}, tool_use_id="toolu_batch_cost")
        entry.handle("claude", json.dumps(payload).encode(), None)
        with claude_files[1].open("ab") as out:
            out.write(TRANSCRIPT.read_bytes().splitlines(keepends=True)[-1])
        with codex_files[1].open("ab") as out:
            out.write(ROLLOUT.read_bytes().splitlines(keepends=True)[-1])
        _until_told({str(claude_files[1]), str(codex_files[1])}, [claude._changes, codex.changes])
        # Whatever the collector and the Codex source do every few seconds is due in the counted tick.
        codex._discovered_at = codex._catalog_at = codex._live_at = None
        collector._pruned_at = None
        collector._probed_at = None  # the setup probe too (every 5 s: due in one run and not the other, when loaded)
        with Counted(conn, monkeypatch) as counts:
            LookedAt.counts = counts
            try:
                collector.tick()
            finally:
                LookedAt.counts = None
        row = conn.execute("SELECT data FROM snapshot WHERE id = ?", (f"claude:{session}",)).fetchone()
        assert json.loads(row[0])["activity"] is not None  # the hook event was taken
        return counts
    finally:
        claude.close()
        codex.close()
        conn.close()


def _until_told(told: set[str], watches: list[ChangedFiles | None]) -> None:
    """Waits (10 s at most) until the change notifications hold every path of `told`, for the next tick."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        pending: set[str] = set()
        for watch in watches:
            assert watch is not None
            with watch._watch.lock:
                pending |= watch._watch.changed
        if told <= pending:
            return
        time.sleep(0.02)


def _cold_start(tmp_path: Path, monkeypatch) -> tuple[Path, ClaudeFilesSource, sqlite3.Connection, Collector]:
    """A collector of Claude's files over 300 old copies of a small real transcript, before its first tick,
    listing them a first look or two a tick (about 200 ticks); returns the config folder with it."""
    monkeypatch.setattr(files_source, "FIRST_LOOK_S", 1e-4)
    monkeypatch.setattr(discovery, "SWEEP_S", 1e9)
    # The setup probe stats every client's hook files every few seconds of wall time: on a loaded machine the
    # listing's ticks outlast that, and a tick that probed counted its 52 stats as the listing's.
    monkeypatch.setattr(setup_probe, "PROBE_EVERY_S", 1e9)
    monkeypatch.setenv("LUNAVECT_HOME", str(tmp_path / "lv"))
    config = tmp_path / "claude"
    transcript = TRANSCRIPT.read_bytes()
    for index in range(300):
        transcript_copy(config, transcript, index % 20, time.time() - 86400 * (2 + index))
    claude = ClaudeFilesSource(config, processes=dict, one_process=lambda pid: None)
    conn = store.connect(paths.store_path())
    collector = Collector(conn, spool_dir=paths.ensure_private_dir(paths.spool_dir()), sources=[claude])
    return config, claude, conn, collector


def test_a_batch_costs_the_same_with_100_or_3000_stored_sessions(tmp_path, monkeypatch):
    small = _one_batch(tmp_path / "small", monkeypatch, 100)
    large = _one_batch(tmp_path / "large", monkeypatch, 3000)
    assert small["statements"] > 0 and small["rows changed"] > 0, small
    # SQLite's steps may differ by a few with a deeper index; a scan of 3,000 sessions' rows would be thousands.
    assert large["sqlite steps"] <= small["sqlite steps"] * 1.1 + 10, (small, large)
    for name in sorted(set(small) | set(large)):
        if name != "sqlite steps":
            assert large[name] == small[name], (name, small, large)


def test_a_cold_start_tick_stats_what_it_looks_at_not_every_file_still_waiting(tmp_path, monkeypatch):
    """While a first start lists a long history a few files a tick, the files still waiting keep the stat they
    were found with: the last tick of the listing stats what the first ones did, not a file more."""
    _, claude, conn, collector = _cold_start(tmp_path, monkeypatch)
    stats: list[int] = []
    real_stat = os.stat

    def counting(*args, **kwargs):
        stats[-1] += 1
        return real_stat(*args, **kwargs)

    monkeypatch.setattr(os, "stat", counting)
    try:
        listed = 0
        while listed < 300 and len(stats) < 400:
            stats.append(0)
            collector.tick()
            listed = conn.execute("SELECT count(*) FROM snapshot WHERE listed = 1").fetchone()[0]
    finally:
        monkeypatch.setattr(os, "stat", real_stat)
        claude.close()
        conn.close()
    assert listed == 300 and len(stats) > 30, (listed, len(stats))  # listed a few files a tick
    # The first tick lists the folders and stats every file; each tick after it the same few paths.
    assert max(stats[2:]) <= min(stats[2:]) + 2, stats


def test_a_session_that_starts_while_a_cold_start_lists_waits_for_none_of_the_older_ones(tmp_path, monkeypatch):
    """A session that starts while a long history is still listed a file or two a tick is listed within a few
    ticks, not after the older files still waiting: its file, written lately, is found again at every tick
    (ahead of them) until it is looked at."""
    monkeypatch.setattr(changed_files, "READY_CHECK_MS", 100)
    config, claude, conn, collector = _cold_start(tmp_path, monkeypatch)

    def listed() -> set[str]:
        rows = conn.execute("SELECT id FROM snapshot WHERE listed = 1").fetchall()
        return {row[0].removeprefix("claude:") for row in rows}

    try:
        collector.tick()  # the first tick lists the folders and starts the change notifications
        tick_until_watched(collector, [claude._changes])
        started = dict(transcript_copy(config, TRANSCRIPT.read_bytes(), 0, time.time()) for _ in range(4))
        new = set(started)
        _until_told({str(path) for path in started.values()}, [claude._changes])
        ticks = 0
        while not new <= listed() and ticks < 400:
            collector.tick()
            ticks += 1
        now_listed = listed()
    finally:
        claude.close()
        conn.close()
    assert new <= now_listed and ticks <= 12, (ticks, len(now_listed))
    assert len(now_listed - new) < 200, (ticks, len(now_listed))  # the older ones were still being listed
