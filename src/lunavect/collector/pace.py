"""The collector's rhythm, apart from its I/O: how long to wait for the next reason to tick, and what a wake calls
for (a whole tick, the hook spool alone, or nothing).

While some session is live it ticks every `tick_s`, and at once for each hook event. At rest nothing it shows
can change by the passage of time, so it waits for a notification, with the slow safety sweep every REST_S.
While sessions are still unlisted it ticks again at once: each tick starts with the hook spool, so a live
session is never kept waiting behind the listing. Once every session is listed, the whole reads that remain
(background work, counts) take at most READING_SHARE of a core: a person's first start with years of history
does not make their machine loud. A share of a core is CPU time: a tick of whole reads is measured by what its
thread spent (`cpu`), not by the wall clock, which on a loaded machine also counts the time other processes had
the core (the rest after it grew with the load, and the reading slowed far more than its share asked).

`Pace` reads nothing but the clock it is given and what it is told, so a test drives it with a clock of its own,
as the rules' `decide` is driven; collector/loop.py waits, looks and ticks as it says.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from lunavect.collector.wake import ACTIVE_STEP_MS, REST_STEP_MS, Woken

TICK_S = 1.0
# At rest, the slow safety sweep: a tick at least this often whatever wakes it (process ends the catalog does
# not show, a rollout the operating system did not tell of; `lunavect doctor` calls a collector silent for 30 s
# behind).
REST_S = 20.0
# However long it rests, it looks this often whether its data folder and lock file are still there (two stats, no
# tick): a data folder deleted takes the watch with it, so no notification would ever say so.
ALIVE_S = 1.0
# After a WAL change that showed no other process's commit yet, it is looked at again this long after: the WAL
# write can come a moment before the commit shows (the WAL index is updated after the last frame is written,
# and that update is no file write a watch sees).
RECHECK_S = (0.003, 0.02, 0.1)
# Whole reads behind a complete list take at most this share of a core (the rest of the time the collector waits).
READING_SHARE = 0.5


@dataclass(frozen=True)
class Wait:
    """How long to wait for the next reason to tick, and the watch's polling step meanwhile."""

    seconds: float
    step_ms: int


@dataclass(frozen=True)
class Tick:
    """A tick a wake calls for."""

    poll: bool  # the sources too (a whole tick), or the hook spool alone
    beat: bool  # a whole tick that nothing but the clock called for commits its start only as a heartbeat


class Pace:
    """When the collector ticks. Each round of its loop asks `wait`, waits as told, asks `looks` whether to look
    for another process's commit, then `after` what the wake calls for; `ticked` stamps the end of a whole tick,
    from which the next is timed."""

    def __init__(
        self,
        tick_s: float = TICK_S,
        clock: Callable[[], float] = time.monotonic,
        cpu: Callable[[], float] = time.thread_time,
    ) -> None:
        self.clock = clock
        self.cpu = cpu  # the CPU time the collector's thread has spent: what a tick of whole reads costs
        self._tick_s = tick_s
        self._ticked = clock()
        self._resting = False
        self._files_waiting = False  # a source's files changed, and the tick for them waits for `tick_s` to pass
        self._recheck: list[float] = []  # when to look again whether another process committed

    def wait(self, *, at_rest: bool, listened: Callable[[], bool]) -> Wait:
        """The next wait: until the next tick is due (REST_S at rest, `tick_s` while live), a look again at the
        WAL, or ALIVE_S, whichever comes first. `at_rest`: nothing the collector shows can change by the passage
        of time. Fine steps while live or while a front end is open (`listened`, asked only at rest: a panel
        shows another process's commit, or a hook event, within a step or two), coarse steps at rest with
        nobody watching."""
        self._resting = at_rest and not self._files_waiting
        now = self.clock()
        timeout = self._period() - (now - self._ticked)
        if self._recheck:
            timeout = min(timeout, self._recheck[0] - now)
        step = REST_STEP_MS if self._resting and not listened() else ACTIVE_STEP_MS
        return Wait(min(max(timeout, 0.0), ALIVE_S), step)

    def looks(self, woken: Woken) -> bool:
        """Whether to look for another process's commit: the WAL changed (then it looks again at RECHECK_S,
        unless a commit is seen first), or one of those looks again fell due."""
        now = self.clock()
        if self._recheck and now >= self._recheck[0]:
            self._recheck.pop(0)
            return True
        if woken.committed:
            self._recheck = [now + delay for delay in RECHECK_S]
        return woken.committed

    def after(self, woken: Woken, committed: bool) -> Tick | None:
        """What the wake calls for, `committed` when the look found another process's commit (passed on to the
        front ends, then a whole tick: it may be a setting). A whole tick also when one is due, when a source's
        files changed and `tick_s` has passed, or for a front end's poke; hook events alone are taken at once
        without reading the sources (their whole tick comes at its time): a turn's burst of tool events costs
        the collector its events, not a poll of each source."""
        if committed:
            self._recheck = []
        self._files_waiting = self._files_waiting or woken.files
        since = self.clock() - self._ticked
        due = since >= self._period()
        sources_due = self._files_waiting and since >= self._tick_s
        if committed or due or sources_due or woken.poked:
            self._files_waiting = False
            return Tick(poll=True, beat=woken.spooled or committed)
        if woken.spooled:
            return Tick(poll=False, beat=True)
        return None

    def ticked(self) -> None:
        """A whole tick ended: the next is timed from now."""
        self._ticked = self.clock()

    def rest(self, started: float) -> float:
        """The wait after a tick of whole reads that began at `started` (on this pace's `cpu` clock), which keeps
        them within READING_SHARE of a core."""
        return (self.cpu() - started) * (1 - READING_SHARE) / READING_SHARE

    def _period(self) -> float:
        return REST_S if self._resting else self._tick_s
