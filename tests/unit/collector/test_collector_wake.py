"""A source asking for a tick must not make the collector miss a hook event or a front end's poke.

watchfiles' watch forgets every change it gathered when its stop event ends the call, so a source's request
that interrupted the watch that way dropped a poke that had arrived in the same step: `lunavect list` then
waited in vain for a tick that committed its start, and warned that the collector had not caught up.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from lunavect.collector.wake import ACTIVE_STEP_MS, Wake, Woken


def open_wake(tmp_path: Path, stop: threading.Event) -> tuple[Path, Path, Wake]:
    """A data folder with its spool, and the collector's wake watching them (the caller closes it)."""
    data = tmp_path / "data"
    spool = data / "spool"
    spool.mkdir(parents=True)
    return data, spool, Wake(data, spool, data / "store.sqlite3-wal", stop)


def test_a_poke_arriving_with_a_sources_request_is_not_lost(tmp_path):
    stop = threading.Event()
    data, spool, wake = open_wake(tmp_path, stop)
    try:
        missed = 0
        for round_ in range(10):
            seen = Woken()
            first: list[Woken] = []

            def wait_once(into: list[Woken] = first) -> None:
                into.append(wake.wait(5.0, ACTIVE_STEP_MS))

            waiting = threading.Thread(target=wait_once)
            waiting.start()
            time.sleep(0.05)  # the watch is running
            (spool / "poke").write_text(str(round_))  # a front end pokes ...
            wake.set()  # ... while a source's watch asks for a tick
            waiting.join()
            seen.spooled = first[0].spooled
            deadline = time.monotonic() + 5.0
            while not seen.spooled and time.monotonic() < deadline:
                seen.spooled = wake.wait(0.2, ACTIVE_STEP_MS).spooled
            missed += not seen.spooled
        assert missed == 0, f"{missed} of 10 pokes were never seen"
    finally:
        stop.set()
        wake.close()


class CountingStop(threading.Event):
    """A stop event that counts how often a waiter asks it: each ask is a wake-up of the waiting thread."""

    asked = 0

    def is_set(self) -> bool:
        self.asked += 1
        return super().is_set()


def test_waiting_while_nothing_changes_wakes_nobody_and_a_hook_event_ends_it(tmp_path):
    stop = CountingStop()
    data, spool, wake = open_wake(tmp_path, stop)
    try:
        woken = wake.wait(2.0, ACTIVE_STEP_MS)  # the step a listening front end asks for
        assert not (woken.spooled or woken.committed or woken.files)
        # A watch that looks every 10 ms asks about 200 times in 2 s; a blocking wait once a second.
        assert stop.asked <= 6, stop.asked
        writer = threading.Timer(0.3, lambda: (spool / "events.jsonl").write_text("{}\n"))
        writer.start()
        started = time.monotonic()
        woken = wake.wait(5.0, ACTIVE_STEP_MS)
        assert woken.spooled and time.monotonic() - started < 5.0
        writer.join()
        (data / "store.sqlite3-wal").write_bytes(b"x")
        assert wake.wait(5.0, ACTIVE_STEP_MS).committed
        wake.set()
        assert wake.wait(5.0, ACTIVE_STEP_MS).files
    finally:
        stop.set()
        wake.close()


def test_a_wait_of_a_fraction_of_a_millisecond_sleeps_through_it(tmp_path):
    """The kernel's poll counts whole milliseconds: a wait whose deadline falls inside one (the collector's
    waits end at a tick's due time, never on a whole millisecond) sleeps to it, rather than asking the kernel
    again and again for its last fraction of a millisecond (about 800 times a wait)."""
    stop = CountingStop()
    _, _, wake = open_wake(tmp_path, stop)
    try:
        for timeout in (0.0505, 0.0009, 0.2731):
            stop.asked = 0
            woken = wake.wait(timeout, ACTIVE_STEP_MS)
            assert not (woken.spooled or woken.committed or woken.files)
            assert stop.asked <= 4, (timeout, stop.asked)
    finally:
        stop.set()
        wake.close()
