"""A collector at rest does no tick work until something wakes it; a hook event still wakes it at once.

At rest (every session settled, the sources owing nothing) no row can change by the passage of time, so the
collector sleeps on its watches instead of ticking every second. The safety sweep is pushed out of reach
here: only a notification can have woken it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import pytest
from unit_support import collector_thread, wait_until

from lunavect import store
from lunavect.collector import pace
from lunavect.collector.tick import Collector

PROMPT = {"session_id": "rest-1", "hook_event_name": "UserPromptSubmit", "cwd": "/tmp/p", "prompt": "x"}
STOP = {"session_id": "rest-1", "hook_event_name": "Stop", "cwd": "/tmp/p"}


def _state(conn) -> str | None:
    row = conn.execute("SELECT data FROM snapshot WHERE id = 'claude:rest-1'").fetchone()
    return json.loads(row[0])["state"] if row else None


def count_ticks(monkeypatch, seen: Callable[[Collector, bool], object]) -> None:
    """Tells `seen` of each tick of the collector's loop as it begins: the collector, and whether it polls the
    sources."""
    real_tick = Collector.tick

    def counting(self: Collector, now: float | None = None, beat: bool = True, poll: bool = True) -> str | None:
        seen(self, poll)
        return real_tick(self, now, beat, poll)

    monkeypatch.setattr(Collector, "tick", counting)


@pytest.mark.process
def test_a_collector_at_rest_does_no_tick_work_and_wakes_for_a_hook_event(iso_env, monkeypatch):
    monkeypatch.setattr(pace, "REST_S", 1e6)  # the slow safety sweep is not due in this test
    ticks: list[Collector] = []
    count_ticks(monkeypatch, lambda collector, poll: ticks.append(collector))
    assert iso_env.hook(PROMPT).returncode == 0
    assert iso_env.hook(STOP).returncode == 0
    with collector_thread() as conn:
        wait_until(lambda: _state(conn) == "ready", "the spooled events were never ingested")
        wait_until(lambda: bool(ticks) and ticks[-1].at_rest, "the collector never came to rest")
        # What its start set going may still wake it once (a source's first background read coming back):
        # let that pass, then count.
        time.sleep(1.5)
        wait_until(lambda: ticks[-1].at_rest, "the collector did not stay at rest")
        at_rest = len(ticks)
        # A collector ticking on a timer would tick about three times in this window.
        time.sleep(3 * pace.TICK_S)
        assert len(ticks) == at_rest, "the collector ticked at rest"

        assert iso_env.hook(PROMPT).returncode == 0  # the person types again in the ready session
        wait_until(lambda: _state(conn) == "working", "the hook event did not wake the collector", timeout=10)
        assert len(ticks) > at_rest


@pytest.mark.process
def test_hook_events_are_taken_at_once_without_polling_the_sources(iso_env, monkeypatch):
    """A turn's burst of tool events wakes the collector for each, but polls no source for them: the sources'
    whole tick comes at its time."""
    monkeypatch.setattr(pace, "TICK_S", 5.0)  # the whole tick of a live session: not within this test
    calls: list[bool] = []
    count_ticks(monkeypatch, lambda collector, poll: calls.append(poll))
    with collector_thread(tick_s=5.0) as conn:
        wait_until(lambda: bool(calls), "the collector never ticked")
        first = len(calls)
        assert iso_env.hook(PROMPT).returncode == 0
        wait_until(lambda: _state(conn) == "working", "the hook event was not taken", timeout=10)
        assert iso_env.hook(STOP).returncode == 0
        wait_until(lambda: _state(conn) == "ready", "the second hook event was not taken", timeout=10)
        assert calls[first:] and not any(calls[first:]), calls  # spool only: no source was polled for them


def test_another_process_commit_seen_a_moment_after_its_wal_write_is_still_passed_on(iso_env, monkeypatch):
    """The WAL is written before the commit shows: a look at the very moment of the write finds nothing new.
    The collector looks again a moment later, and passes the commit on to the front ends."""
    from lunavect.listing import changes

    monkeypatch.setattr(pace, "REST_S", 1e6)
    published: list[float] = []
    real_publish = changes.Publisher.publish

    def counting(self) -> None:
        published.append(time.monotonic())
        real_publish(self)

    monkeypatch.setattr(changes.Publisher, "publish", counting)
    real_changed = changes.ExternalCommits.changed
    early: list[bool] = []

    def late(self) -> bool:
        if armed and not early:  # the look that comes with the WAL write: the commit does not show yet
            early.append(True)
            return False
        return real_changed(self)

    monkeypatch.setattr(changes.ExternalCommits, "changed", late)
    armed = False
    with collector_thread() as conn:
        time.sleep(1.5)  # started, and resting
        before = len(published)
        armed = True
        with store.transaction(conn):
            store.set_setting(conn, "bench.probe", "1")
        wait_until(lambda: len(published) > before, "the other process's commit was not passed on", timeout=5)
        assert early, "the first look did not happen"
