"""The panel says when what it shows may be out of date: its collector stopped (or behind: an old heartbeat),
judged by `collector.process.staleness`, the one owner of that fact; and the warning goes once it is current."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
import tui_seed as seed
from tui_support import pilot_test, wait_for

from lunavect import paths, store
from lunavect.collector import process as collector_process
from lunavect.frontends.tui.widgets import StaleNote

SIZE = (120, 30)


def warning(app) -> str:
    note = app.screen_stack[0].query_one("#stale", StaleNote)
    return note._shown if note.has_class("-shown") else ""


def stop_collector(timeout: float = 10.0) -> None:
    """Stop the collector this test's panel started (its pid from the lock file, checked to be ours)."""
    pid = collector_process.collector_pid()
    assert pid is not None and collector_process.is_running()
    environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    assert f"LUNAVECT_HOME={paths.data_dir()}".encode() in environ  # never anyone else's collector
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while collector_process.is_running():
        assert time.monotonic() < deadline, "the collector did not stop"
        time.sleep(0.05)


@pytest.mark.process
@pilot_test
async def test_a_stopped_collector_or_an_old_heartbeat_shows_a_warning_that_clears(conn, make_app):
    seed.write(conn, [seed.session("s1", "ready")])
    app = make_app(start_collector=True, stale_check_interval=0.1)
    try:
        async with app.run_test(size=SIZE) as pilot:
            # The collector the panel started ticks: nothing to say.
            await wait_for(pilot, lambda: collector_process.last_tick(conn) is not None, timeout=60)
            await wait_for(pilot, lambda: app.staleness is not None and app.staleness(conn) is None, timeout=60)
            await wait_for(pilot, lambda: warning(app) == "", timeout=30)

            stop_collector()
            await wait_for(pilot, lambda: "the collector is not running" in warning(app), timeout=30)
            assert warning(app).startswith("Not current: ") and "lunavect doctor" in warning(app)

            assert collector_process.ensure_running()
            await wait_for(pilot, lambda: warning(app) == "", timeout=60)

            # Its last heartbeat ten minutes old: the warning says so; a collector's first tick clears it.
            stop_collector()
            store.set_collector_value(conn, "tick_started", repr(time.time() - 600))
            conn.commit()
            await wait_for(pilot, lambda: "(last tick 10m" in warning(app), timeout=30)
            assert collector_process.ensure_running()
            await wait_for(pilot, lambda: warning(app) == "", timeout=60)
    finally:
        if collector_process.is_running():
            stop_collector()


@pilot_test
async def test_an_unreadable_store_is_said_as_such(conn, make_app):
    import sqlite3

    seed.write(conn, [seed.session("s1", "ready")])

    def unreadable(_conn):
        raise sqlite3.DatabaseError("database disk image is malformed")

    app = make_app(staleness=unreadable, stale_check_interval=0.1)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "the store cannot be read" in warning(app), timeout=30)
        assert "malformed" in warning(app)
