"""Faults the person's machine can throw at lunavect (issue 12, "Faults"): a full disk under the spool or the
store, a clock that jumps. Real parts: a small tmpfs mounted for the test (we run as root in CI), the real
hook command, the real store."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import msgspec
import pytest
from unit_support import Feed, pending_spool_bytes

from lunavect import collector as collector_module
from lunavect import store
from lunavect.collector import Collector
from lunavect.core.model import Evidence, Session
from lunavect.frontends import rows

SESSION_A = "0a0a0a0a-1111-4222-8333-444455556666"
SESSION_B = "0b0b0b0b-1111-4222-8333-444455556666"
SESSION_C = "0c0c0c0c-1111-4222-8333-444455556666"


def prompt(session: str) -> dict:
    return {
        "session_id": session,
        "transcript_path": f"/nowhere/{session}.jsonl",
        "cwd": "/tmp/project",
        "hook_event_name": "UserPromptSubmit",
        "prompt": "hello",
    }


@pytest.fixture
def small_disk(tmp_path: Path):
    """A 16 MiB tmpfs of this test's own, unmounted in teardown."""
    mountpoint = tmp_path / "small-disk"
    mountpoint.mkdir()
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=16m,mode=0700", "tmpfs", str(mountpoint)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        pytest.skip(f"mounting a tmpfs was refused (needs root): {proc.stderr.strip()}")
    yield mountpoint
    subprocess.run(["umount", "-l", str(mountpoint)], check=False)


def fill(folder: Path) -> Path:
    """Write a filler file in `folder` until its file system reports ENOSPC for a single byte; returns it."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        for size in (65536, 4096, 1):
            while True:
                try:
                    os.write(fd, b"\0" * size)
                except OSError as exc:
                    assert exc.errno == errno.ENOSPC, exc
                    break
    finally:
        os.close(fd)
    return filler


def use_data_folder(iso_env, monkeypatch, data: Path) -> None:
    iso_env.data = data
    iso_env.env["LUNAVECT_HOME"] = str(data)
    monkeypatch.setenv("LUNAVECT_HOME", str(data))


def listed_sessions(conn) -> set[str]:
    return {json.loads(data)["session_id"] for (data,) in conn.execute("SELECT data FROM snapshot WHERE listed = 1")}


def test_a_full_disk_under_the_spool_never_hurts_the_agent_and_ingestion_resumes(iso_env, monkeypatch, small_disk):
    use_data_folder(iso_env, monkeypatch, small_disk / "lunavect")
    proc = iso_env.hook(prompt(SESSION_A))
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    conn = iso_env.connect()
    collector = Collector(conn)
    collector.tick()
    assert listed_sessions(conn) == {SESSION_A}

    filler = fill(small_disk)
    proc = iso_env.hook(prompt(SESSION_B))  # bounded by the harness's timeout: a shim that blocked fails here
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    collector.tick()  # the collector on a full disk does not lose what it has
    assert listed_sessions(conn) == {SESSION_A}

    filler.unlink()
    proc = iso_env.hook(prompt(SESSION_C))
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    collector.tick()
    listed = listed_sessions(conn)
    assert {SESSION_A, SESSION_C} <= listed  # ingestion resumed, nothing stored was lost
    assert listed <= {SESSION_A, SESSION_B, SESSION_C}


def test_a_full_disk_under_the_store_loses_nothing_and_ingestion_resumes(iso_env, small_disk):
    conn = store.connect(small_disk / "store.sqlite3")  # the store on the small disk, the spool beside the home
    try:
        collector = Collector(conn)
        assert iso_env.hook(prompt(SESSION_A)).returncode == 0
        collector.tick()
        assert listed_sessions(conn) == {SESSION_A}

        filler = fill(small_disk)
        for n in range(20):  # more events than the store's last free pages could take
            proc = iso_env.hook(dict(prompt(SESSION_B), prompt=f"event {n}"))
            assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
        for _ in range(3):  # a tick that raised here would end the collector: every front end restarts it
            collector.tick()  # into the same failure, a crash loop
        assert SESSION_A in listed_sessions(conn)  # nothing stored is lost
        events_before = conn.execute("SELECT count(*) FROM events").fetchone()[0]
        assert events_before < 21  # the disk was full to the store: not every event could be stored

        filler.unlink()
        collector.tick()
        assert listed_sessions(conn) == {SESSION_A, SESSION_B}  # ingestion resumed
        stored = conn.execute("SELECT count(*) FROM events").fetchone()[0]
        assert stored == 21  # each spooled event once: none lost, none doubled
        assert pending_spool_bytes(conn, iso_env.spool_dir) == 0
    finally:
        conn.close()


# ---------------------------------------------------------------------------------------------------------
# The clock jumping back an hour or forward a day (the collector and the rules take `now`).

NOW = 2_000_000_000.0


def shown(conn, now: float) -> tuple[str, str]:
    """The row's state and its timer as the front ends show them at `now`."""
    session = msgspec.json.decode(conn.execute("SELECT data FROM snapshot").fetchone()[0], type=Session)
    return session.state, rows.timer(session, now)


def test_a_clock_that_jumps_leaves_no_stuck_state_and_no_negative_timer(tmp_path):
    conn = store.connect(tmp_path / "store.sqlite3")
    feed = Feed()
    collector = Collector(conn, spool_dir=tmp_path / "spool", sources=[feed])

    def at(now: float, *evidence: tuple[str, float]) -> tuple[str, str]:
        feed.queued = [
            (f"e{at_}", Evidence(provider="claude", session_id="s1", kind=kind, at=at_, source="transcript", cwd="/p"))
            for kind, at_ in evidence
        ]
        collector.tick(now)
        return shown(conn, now)

    assert at(NOW, ("TranscriptPrompt", NOW)) == ("working", "0s")
    assert at(NOW + 30) == ("working", "30s")
    # Back an hour: the turn began "in the future"; still working, the timer at 0, never negative.
    assert at(NOW - 3600) == ("working", "0s")
    assert at(NOW + 60) == ("working", "1m 00s")  # the clock set right: the timer runs from the true start
    # Forward a day: the evidence lost its authority.
    assert at(NOW + 86400)[0] == "unknown"
    assert at(NOW + 90) == ("working", "1m 30s")  # set right again: not stuck unknown
    later = NOW + 2 * 86400
    assert at(later, ("TranscriptResponse", later)) == ("ready", "")
    assert at(later - 3600) == ("ready", "")  # back an hour: the answer stands
    assert at(later + 10, ("TranscriptPrompt", later + 10)) == ("working", "0s")
    assert at(later + 10 - 3600)[1] == "0s"
    assert at(later + 25) == ("working", "15s")
    conn.close()


def test_pruning_resumes_after_the_clock_came_back_from_a_day_ahead(tmp_path, monkeypatch):
    conn = store.connect(tmp_path / "store.sqlite3")
    collector = Collector(conn, spool_dir=tmp_path / "spool", sources=[])
    pruned: list[float] = []
    real = store.prune_events
    monkeypatch.setattr(store, "prune_events", lambda c, now: pruned.append(now) or real(c, now))
    collector.prune(NOW + 86400)  # the clock a day ahead
    collector.prune(NOW)  # set right
    collector.prune(NOW + collector_module.PRUNE_EVERY_S + 1)
    assert pruned[-1] == NOW + collector_module.PRUNE_EVERY_S + 1  # not skipped for the day the clock was ahead
    conn.close()


# ---------------------------------------------------------------------------------------------------------
# The collector killed during a migration.

MIGRATING_CHILD = r"""
import pathlib, sqlite3, sys, time
from lunavect import store

marker = pathlib.Path(sys.argv[2])
real_connect = sqlite3.connect


class Pausing(sqlite3.Connection):
    # Stops for good halfway through the new migration: after its first statement, before its second.
    def execute(self, sql, *args):
        cursor = super().execute(sql, *args)
        if "CREATE TABLE extra" in sql:
            marker.write_text("half way")
            time.sleep(600)
        return cursor


sqlite3.connect = lambda *a, **k: real_connect(*a, factory=Pausing, **k)
store.MIGRATIONS = [*store.MIGRATIONS, sys.argv[3]]
store.SCHEMA_VERSION = len(store.MIGRATIONS)
store.connect(pathlib.Path(sys.argv[1]))
"""

NEW_MIGRATION = (
    "CREATE TABLE extra (x INTEGER); INSERT INTO extra VALUES (1); ALTER TABLE settings ADD COLUMN note TEXT"
)


def test_a_collector_killed_during_a_migration_leaves_a_store_the_next_open_migrates(tmp_path, monkeypatch):
    path = tmp_path / "store.sqlite3"
    conn = store.connect(path)  # a store of this version, with something in it: "old" for the next version
    with store.transaction(conn):
        conn.execute("INSERT INTO settings (key, value) VALUES ('kept', 'yes')")
    conn.close()
    marker = tmp_path / "migrating"
    child = subprocess.Popen([sys.executable, "-c", MIGRATING_CHILD, str(path), str(marker), NEW_MIGRATION])
    try:
        deadline = time.monotonic() + 60
        while not marker.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert marker.exists(), "the child never reached the middle of the migration"
        child.send_signal(signal.SIGKILL)
        assert child.wait(timeout=20) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()

    migrations = [*store.MIGRATIONS, NEW_MIGRATION]
    monkeypatch.setattr(store, "MIGRATIONS", migrations)
    monkeypatch.setattr(store, "SCHEMA_VERSION", len(migrations))
    conn = store.connect(path)  # the next open: the half-done migration left nothing, it runs whole once
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == len(migrations)
        assert conn.execute("SELECT x FROM extra").fetchall() == [(1,)]
        assert conn.execute("SELECT value, note FROM settings WHERE key = 'kept'").fetchone() == ("yes", None)
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        conn.close()
