"""The collector's rhythm, pure: how long it waits and what each wake calls for, on a clock the test moves (the
way the rules' `decide` is tested). The loop that carries it out is tested running, in test_collector_rest.py
and test_collector_pace.py."""

from __future__ import annotations

import pytest

from lunavect.collector import pace
from lunavect.collector.pace import ALIVE_S, READING_SHARE, RECHECK_S, REST_S, Pace, Tick, Wait
from lunavect.collector.wake import ACTIVE_STEP_MS, REST_STEP_MS, Woken

TICK_S = 1.0


class Clock:
    """A monotonic clock that moves only when the test says."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def started(clock: Clock) -> Pace:
    """A pace whose first tick has just ended."""
    beat = Pace(TICK_S, clock)
    beat.ticked()
    return beat


def nobody() -> bool:
    return False


def test_live_it_waits_in_fine_steps_at_most_alive_s_until_the_next_tick_is_due():
    clock = Clock()
    beat = started(clock)
    assert beat.wait(at_rest=False, listened=nobody) == Wait(min(TICK_S, ALIVE_S), ACTIVE_STEP_MS)
    clock.advance(0.4)
    assert beat.wait(at_rest=False, listened=nobody) == Wait(pytest.approx(0.6), ACTIVE_STEP_MS)
    clock.advance(5)
    assert beat.wait(at_rest=False, listened=nobody) == Wait(0.0, ACTIVE_STEP_MS)  # overdue: at once


def test_at_rest_it_waits_in_coarse_steps_unless_a_front_end_listens_and_still_looks_every_alive_s():
    clock = Clock()
    beat = started(clock)
    assert beat.wait(at_rest=True, listened=nobody) == Wait(ALIVE_S, REST_STEP_MS)
    assert beat.wait(at_rest=True, listened=lambda: True) == Wait(ALIVE_S, ACTIVE_STEP_MS)


def test_whether_a_front_end_listens_is_asked_only_at_rest():
    """Asking prunes the feed's subscribers that went away; live, the steps are fine whoever listens."""
    asked: list[bool] = []

    def listened() -> bool:
        asked.append(True)
        return True

    beat = started(Clock())
    beat.wait(at_rest=False, listened=listened)
    assert asked == []
    beat.wait(at_rest=True, listened=listened)
    assert asked == [True]


def test_a_live_wake_with_nothing_new_ticks_once_tick_s_has_passed_as_a_heartbeat():
    clock = Clock()
    beat = started(clock)
    beat.wait(at_rest=False, listened=nobody)
    clock.advance(0.5)
    assert beat.after(Woken(), committed=False) is None
    beat.wait(at_rest=False, listened=nobody)
    clock.advance(0.5)
    assert beat.after(Woken(), committed=False) == Tick(poll=True, beat=False)


def test_at_rest_only_the_safety_sweep_ticks_on_the_clock():
    clock = Clock()
    beat = started(clock)
    beat.wait(at_rest=True, listened=nobody)
    clock.advance(REST_S - 0.1)
    assert beat.after(Woken(), committed=False) is None
    beat.wait(at_rest=True, listened=nobody)
    clock.advance(0.1)
    assert beat.after(Woken(), committed=False) == Tick(poll=True, beat=False)


def test_the_next_tick_is_timed_from_the_end_of_the_last_whole_one():
    clock = Clock()
    beat = started(clock)
    clock.advance(0.9)
    beat.ticked()  # a tick of 0.9 s just ended
    beat.wait(at_rest=False, listened=nobody)
    clock.advance(0.5)
    assert beat.after(Woken(), committed=False) is None


def test_hook_events_alone_are_taken_at_once_without_reading_the_sources():
    clock = Clock()
    beat = started(clock)
    beat.wait(at_rest=False, listened=nobody)
    clock.advance(0.01)
    assert beat.after(Woken(spooled=True), committed=False) == Tick(poll=False, beat=True)


def test_a_front_end_s_poke_gets_a_whole_tick_at_once():
    beat = started(Clock())
    beat.wait(at_rest=True, listened=nobody)
    assert beat.after(Woken(spooled=True, poked=True), committed=False) == Tick(poll=True, beat=True)


def test_another_process_s_commit_gets_a_whole_tick_at_once_that_commits_its_start():
    beat = started(Clock())
    beat.wait(at_rest=True, listened=nobody)
    assert beat.after(Woken(committed=True), committed=True) == Tick(poll=True, beat=True)


def test_a_source_s_files_wait_for_tick_s_and_keep_the_collector_from_resting_meanwhile():
    clock = Clock()
    beat = started(clock)
    beat.wait(at_rest=True, listened=nobody)
    clock.advance(0.2)
    assert beat.after(Woken(files=True), committed=False) is None  # at most one tick per tick_s
    # Files waiting: not at rest, so fine steps and a wait until tick_s has passed.
    assert beat.wait(at_rest=True, listened=nobody) == Wait(pytest.approx(TICK_S - 0.2), ACTIVE_STEP_MS)
    clock.advance(TICK_S - 0.2)
    assert beat.after(Woken(), committed=False) == Tick(poll=True, beat=False)
    # Taken: at rest again.
    assert beat.wait(at_rest=True, listened=nobody) == Wait(ALIVE_S, REST_STEP_MS)


def test_a_wal_change_that_shows_no_commit_yet_is_looked_at_again_at_each_recheck():
    clock = Clock()
    beat = started(clock)
    beat.wait(at_rest=True, listened=nobody)
    assert beat.looks(Woken(committed=True))  # the WAL changed: look
    assert beat.after(Woken(committed=True), committed=False) is None  # no commit showed yet
    looked = []
    for delay in RECHECK_S:
        # The wait ends at the next look again, however long the rest.
        assert beat.wait(at_rest=True, listened=nobody).seconds == pytest.approx(delay - (clock.now - 1000.0))
        clock.now = 1000.0 + delay
        looked.append(beat.looks(Woken()))
        beat.after(Woken(), committed=False)
    assert looked == [True] * len(RECHECK_S)
    assert not beat.looks(Woken())  # no more looks again
    assert beat.wait(at_rest=True, listened=nobody).seconds == ALIVE_S


def test_a_commit_seen_ends_the_looks_again():
    clock = Clock()
    beat = started(clock)
    beat.wait(at_rest=True, listened=nobody)
    assert beat.looks(Woken(committed=True))
    assert beat.after(Woken(committed=True), committed=True) == Tick(poll=True, beat=True)
    beat.ticked()
    clock.advance(RECHECK_S[-1])
    assert not beat.looks(Woken())


def test_a_wake_with_no_wal_change_and_no_look_again_due_does_not_look():
    beat = started(Clock())
    beat.wait(at_rest=True, listened=nobody)
    assert not beat.looks(Woken(spooled=True))


def test_whole_reads_rest_so_that_they_take_their_share_of_a_core():
    """Measured in the CPU time the tick took (its `cpu` clock), never the wall clock, which counts the other
    processes of a loaded machine too."""
    clock, cpu = Clock(), Clock()
    beat = Pace(TICK_S, clock, cpu)
    began = beat.cpu()
    clock.advance(5)  # the wall clock says nothing of the tick's cost
    cpu.advance(0.3)
    assert beat.rest(began) == pytest.approx(0.3 * (1 - READING_SHARE) / READING_SHARE)


def test_the_share_is_read_when_asked(monkeypatch):
    """A test of the running collector slows its whole reads down by lowering the share."""
    cpu = Clock()
    beat = Pace(TICK_S, Clock(), cpu)
    monkeypatch.setattr(pace, "READING_SHARE", 0.01)
    began = beat.cpu()
    cpu.advance(0.1)
    assert beat.rest(began) == pytest.approx(9.9)
