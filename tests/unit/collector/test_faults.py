"""A serving loop survives its own failure: `faults.Loop` notes it (logged at a bounded rate, counted, the last
one kept in the store), the loop takes its next step, and `lunavect doctor` names the loop that failed."""

from __future__ import annotations

import logging
import threading

from lunavect import faults, store
from lunavect.collector.doctor import examine, lines


def test_a_failed_step_is_recorded_and_the_next_step_runs(iso_env, caplog):
    conn = iso_env.connect()
    loop = faults.Loop("notifier", logging.getLogger("lunavect.test"))
    done: list[int] = []

    def step(n: int) -> None:
        if n < 3:
            raise ValueError(f"bad value {n}")
        done.append(n)

    with caplog.at_level(logging.ERROR, "lunavect.test"):
        results = [loop.step(lambda n=n: step(n)) for n in range(4)]
    assert results == [False, False, False, True] and done == [3]
    assert loop.count == 3
    assert sum("notifier failed" in r.getMessage() for r in caplog.records) == 3  # three distinct messages
    (failure,) = faults.loop_failures(conn)
    assert (failure.loop, failure.count, failure.error) == ("notifier", 3, "ValueError: bad value 2")
    report = examine()
    assert report.collector["loop_failures"][0]["loop"] == "notifier"
    assert any("its notifier failed 3 time(s)" in p.what for p in report.problems)
    assert any("notifier: failed 3 time(s), went on" in line for line in lines(report))
    faults.forget_loops(conn)
    assert faults.loop_failures(conn) == []


def test_a_fault_that_repeats_at_once_does_not_spin(iso_env, monkeypatch):
    slept: list[float] = []
    monkeypatch.setattr(faults.time, "sleep", slept.append)
    clock = iter(float(n) / 10 for n in range(100))
    loop = faults.Loop("tmux publisher", logging.getLogger("lunavect.test"), clock=lambda: next(clock))

    def fail() -> None:
        raise RuntimeError("same again")

    for _ in range(3):
        loop.step(fail)
    assert slept == [faults.LOOP_PAUSE_S, faults.LOOP_PAUSE_S]  # the first failure goes on at once


def test_a_store_that_cannot_be_written_leaves_the_failure_in_the_log_only(iso_env, caplog):
    def broken() -> store.sqlite3.Connection:
        raise store.StoreError("cannot open the store")

    loop = faults.Loop("sync", logging.getLogger("lunavect.test"), connect=broken)
    with caplog.at_level(logging.ERROR, "lunavect.test"):
        assert loop.step(lambda: 1 / 0) is False
    assert "sync failed: ZeroDivisionError" in caplog.text


def test_one_guard_serves_its_loop_from_another_thread(iso_env):
    loop = faults.Loop("change feed", logging.getLogger("lunavect.test"))
    thread = threading.Thread(target=loop.step, args=(lambda: int("x"),))
    thread.start()
    thread.join()
    assert [f.loop for f in faults.loop_failures(iso_env.connect())] == ["change feed"]
