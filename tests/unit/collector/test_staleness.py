"""`collector.process.staleness`: the one judgement of whether the store is current, that the panel shows and
doctor's "behind" shares (the collector's heartbeat against `BEHIND_AFTER_S`, and whether one runs)."""

from __future__ import annotations

import os
import time

from lunavect import store
from lunavect.collector import doctor
from lunavect.collector import process as collector_process


def test_running_and_ticking_is_current_an_old_heartbeat_is_behind_no_lock_is_not_running(iso_env):
    conn = store.connect()
    now = time.time()
    assert collector_process.staleness(conn, now) == "the collector is not running"
    fd = collector_process.try_lock()  # this test holds the collector's lock, as a running collector does
    assert fd is not None
    try:
        assert collector_process.staleness(conn, now) == "the collector has not ticked yet"
        store.set_collector_value(conn, "tick_started", repr(now - 2))
        conn.commit()
        assert collector_process.last_tick(conn) == now - 2
        assert collector_process.staleness(conn, now) is None
        old = now - collector_process.BEHIND_AFTER_S - 5
        store.set_collector_value(conn, "tick_started", repr(old))
        conn.commit()
        assert collector_process.staleness(conn, now) == "the collector is behind (last tick 1m 05s ago)"
    finally:
        os.close(fd)
    assert collector_process.staleness(conn, now) == "the collector is not running (last tick 1m 05s ago)"
    assert doctor.LAG_WARNING_S == collector_process.BEHIND_AFTER_S


def test_a_damaged_heartbeat_is_no_heartbeat(iso_env):
    conn = store.connect()
    store.set_collector_value(conn, "tick_started", "yesterday")
    conn.commit()
    assert collector_process.last_tick(conn) is None
