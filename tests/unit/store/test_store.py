"""The store: SQLite in WAL mode, private files, a versioned schema with migrations that run once."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from unit_support import LUNAVECT_BIN

from lunavect import paths, store


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_wal_mode_and_schema_version(iso_env):
    conn = iso_env.connect()
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == store.SCHEMA_VERSION
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"events", "spool_cursor", "facts", "snapshot", "arrangement", "settings", "counters", "collector"} <= tables


def test_processes_opening_a_new_store_together_all_get_it(tmp_path):
    # Switching a new file to WAL is not covered by SQLite's busy handler: a front end and the collector it
    # just started opening a new store together once failed with "database is locked" in about one start in ten.
    failures: list[str] = []
    for round_ in range(60):
        path = tmp_path / f"store-{round_}.sqlite3"
        start = threading.Barrier(3)

        def open_it(path=path, start=start) -> None:
            start.wait()
            try:
                store.connect(path).close()
            except store.StoreError as exc:
                failures.append(str(exc))

        threads = [threading.Thread(target=open_it) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert failures == []


def test_files_are_private(iso_env):
    previous = os.umask(0o022)  # a usual umask: SQLite alone would create 0644 files
    try:
        conn = iso_env.connect()
        with store.transaction(conn):
            store.bump_counter(conn, "x")
        path = paths.store_path()
        assert mode(path) == 0o600
        for suffix in ("-wal", "-shm"):
            side = path.with_name(path.name + suffix)
            if side.exists():
                assert mode(side) == 0o600, suffix
        assert mode(path.parent) == 0o700
    finally:
        os.umask(previous)


def test_an_existing_unversioned_database_is_migrated(iso_env):
    """A database file of schema 0 (created by plain SQLite) is migrated in place."""
    path = paths.store_path()
    path.parent.mkdir(parents=True)
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA journal_mode = WAL")
    raw.close()
    conn = iso_env.connect()
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            assert mode(side) == 0o600
    assert conn.execute("PRAGMA user_version").fetchone()[0] == store.SCHEMA_VERSION


def test_reopening_does_not_rerun_migrations(iso_env, monkeypatch):
    conn = iso_env.connect()
    with store.transaction(conn):
        conn.execute("INSERT INTO settings (key, value) VALUES ('k', 'v')")
    conn.close()
    # Re-running migration 1 would fail on CREATE TABLE; it must not run, and the data stays.
    conn = iso_env.connect()
    assert conn.execute("SELECT value FROM settings WHERE key = 'k'").fetchone() == ("v",)
    conn.close()

    # A new migration runs once, on the next open only.
    migrations = [*store.MIGRATIONS, "CREATE TABLE extra (x INTEGER); INSERT INTO extra VALUES (1)"]
    monkeypatch.setattr(store, "MIGRATIONS", migrations)
    monkeypatch.setattr(store, "SCHEMA_VERSION", len(migrations))
    conn = iso_env.connect()
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(migrations)
    assert conn.execute("SELECT COUNT(*) FROM extra").fetchone()[0] == 1
    conn.close()
    conn = iso_env.connect()
    assert conn.execute("SELECT COUNT(*) FROM extra").fetchone()[0] == 1
    assert conn.execute("SELECT value FROM settings WHERE key = 'k'").fetchone() == ("v",)


def test_a_failing_migration_changes_nothing(iso_env, monkeypatch):
    iso_env.connect().close()
    migrations = [*store.MIGRATIONS, "CREATE TABLE half (x INTEGER); THIS IS NOT SQL"]
    monkeypatch.setattr(store, "MIGRATIONS", migrations)
    monkeypatch.setattr(store, "SCHEMA_VERSION", len(migrations))
    with pytest.raises(store.StoreError) as info:
        store.connect()
    assert "\n" not in str(info.value)
    raw = sqlite3.connect(paths.store_path())
    try:
        assert raw.execute("PRAGMA user_version").fetchone()[0] == len(migrations) - 1
        assert raw.execute("SELECT name FROM sqlite_master WHERE name = 'half'").fetchone() is None
    finally:
        raw.close()


@pytest.mark.process
def test_newer_schema_is_refused_with_one_line(iso_env):
    iso_env.connect().close()
    raw = sqlite3.connect(paths.store_path())
    raw.execute(f"PRAGMA user_version = {store.SCHEMA_VERSION + 5}")
    raw.close()
    with pytest.raises(store.StoreError) as info:
        store.connect()
    message = str(info.value)
    assert "\n" not in message and str(store.SCHEMA_VERSION + 5) in message
    proc = iso_env.cli_process("list")  # the real console script: its stderr holds no traceback
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("lunavect: ")
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("command", [["list"], ["list", "--json"], ["counts"], ["hooks", "status"]])
def test_corrupt_store_is_one_line_error(iso_env, command):
    path = paths.store_path()
    path.parent.mkdir(parents=True)
    garbage = bytes(range(256)) * 64
    path.write_bytes(garbage)
    proc = iso_env.cli(*command)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("lunavect: ")
    assert "Traceback" not in proc.stderr
    assert path.read_bytes() == garbage  # left for the person to inspect
    assert not (iso_env.data / "collector.lock").exists() or not _collector_running(iso_env)


@pytest.mark.process
@pytest.mark.parametrize("command", [["list"], ["counts", "--json"], ["hooks", "status"]])
def test_unusable_data_folder_is_one_line_error(iso_env, command):
    blocker = iso_env.root / "a-file"
    blocker.write_text("x")
    env = dict(iso_env.env, LUNAVECT_HOME=str(blocker / "lunavect"))
    proc = subprocess.run([LUNAVECT_BIN, *command], env=env, capture_output=True, text=True, timeout=30)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("lunavect: ")
    assert "Traceback" not in proc.stderr


def _collector_running(iso_env) -> bool:
    from lunavect.collector import process as collector

    return collector.is_running()


def test_transaction_rolls_back_on_error(iso_env):
    conn = iso_env.connect()
    with pytest.raises(RuntimeError):
        with store.transaction(conn):
            store.bump_counter(conn, "a", 5)
            raise RuntimeError("boom")
    assert store.counters(conn) == {}
    with store.transaction(conn):
        store.bump_counter(conn, "a", 5)
        store.bump_counter(conn, "a")
    assert store.counters(conn) == {"a": 6}


def test_collector_values_and_latest_event_time(iso_env):
    conn = iso_env.connect()
    assert store.latest_event_time(conn) is None
    with store.transaction(conn):
        store.set_collector_value(conn, "k", "1")
        store.set_collector_value(conn, "k", "2")
        conn.execute(
            "INSERT INTO events (event_id, provider, session_id, kind, at, data) VALUES "
            "('e1', 'claude', 's', 'Stop', 10.0, '{}'), ('e2', 'codex', 't', 'Stop', 20.0, '{}')"
        )
    assert store.collector_values(conn) == {"k": "2"}
    assert store.latest_event_time(conn) == 20.0
    assert store.latest_event_time(conn, "claude") == 10.0


@given(
    st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["A", "B"]), st.floats(0, 5000)), min_size=1, max_size=60),
    st.lists(st.floats(0, 5000), min_size=1, max_size=6),
)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_prune_since_the_last_cut_forgets_what_a_full_prune_forgets(tmp_path_factory, stored, prunes):
    """A prune that looks only at the kinds stored since the previous prune's cut leaves exactly the events a
    prune of every event leaves, prune after prune, whatever arrives between them."""
    folder = tmp_path_factory.mktemp("prune")
    full, quick = store.connect(folder / "full.sqlite3"), store.connect(folder / "quick.sqlite3")
    events = sorted(stored, key=lambda item: item[2])
    cut: float | None = None
    at = 0.0
    for prune_at in sorted(prunes):
        for conn in (full, quick):
            with store.transaction(conn):
                conn.executemany(
                    "INSERT INTO events (event_id, provider, session_id, kind, at, data, stored_at) "
                    "VALUES (?, 'claude', ?, ?, ?, '{}', ?)",
                    [(f"e{i}", f"s{s}", kind, t, t) for i, (s, kind, t) in enumerate(events) if at <= t < prune_at],
                )
        at = prune_at
        with store.transaction(full):
            store.prune_events(full, prune_at, window=900.0)
        with store.transaction(quick):
            store.prune_events(quick, prune_at, window=900.0, since=cut)
        cut = prune_at - 900.0
        left = [conn.execute("SELECT event_id FROM events ORDER BY seq").fetchall() for conn in (full, quick)]
        assert left[0] == left[1]
    full.close()
    quick.close()


def test_a_first_prune_with_nothing_old_deletes_without_looking_at_every_event(iso_env):
    """A collector's first prune (no earlier cut) over a store whose events were all stored just now, as at a
    first start over years of history, is one index lookup: the grouping of every event was a twelfth of a cold
    start's CPU. Once an event is older than the window, the same prune forgets it as before."""
    conn = iso_env.connect()
    with store.transaction(conn):
        conn.executemany(
            "INSERT INTO events (event_id, provider, session_id, kind, at, data, stored_at) "
            "VALUES (?, 'claude', ?, 'Stop', ?, '{}', ?)",
            [(f"e{i}", f"s{i % 3}", 1000.0 + i, 1000.0 + i) for i in range(12)],
        )
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    with store.transaction(conn):
        assert store.prune_events(conn, 1100.0, window=900.0) == 0
    assert not [s for s in statements if "DELETE" in s], statements
    with store.transaction(conn):
        assert store.prune_events(conn, 1905.0, window=900.0) == 5  # e0 to e4: old, and none a session's newest
    conn.set_trace_callback(None)
    assert [row[0] for row in conn.execute("SELECT event_id FROM events ORDER BY seq")] == [
        f"e{i}" for i in range(5, 12)
    ]
