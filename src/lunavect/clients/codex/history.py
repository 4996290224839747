"""Every Codex rollout a person ever wrote, not only the recent ones: each listed, then looked at rarely.

The source's frequent discovery enumerates the newest day folders only (what may run now). A person's
history goes back months: a full discovery, at the first poll and then every SWEEP_S, finds every rollout,
and each one it found waits here until the source has looked at it once (a first read lists the thread; a
rollout already read only costs a stat). So every past session is listed, and a finished rollout is stat'ed
once per SWEEP_S rather than at every tick.
"""

from __future__ import annotations

import time
from pathlib import Path

from lunavect.clients.codex.rollout import Budget, discover

# How often every day folder is enumerated again (the safety sweep of finished rollouts).
SWEEP_S = 300.0
# A full discovery is bounded by what a year of heavy use holds, never by a recent window.
_UNBOUNDED = Budget(entries=10_000_000, seconds=float("inf"), days=100_000)


class History:
    """Rollouts found by the full discovery and not looked at since, newest first."""

    def __init__(self, codex_home: Path) -> None:
        self.codex_home = codex_home
        self.pending: dict[str, None] = {}
        self._swept_at: float | None = None

    def refresh(self) -> bool:
        """Enumerate every day folder when the sweep is due (then True); each rollout found waits for one look."""
        clock = time.monotonic()
        if self._swept_at is not None and clock - self._swept_at < SWEEP_S:
            return False
        self._swept_at = clock
        budget = Budget(entries=_UNBOUNDED.entries, seconds=_UNBOUNDED.seconds, days=_UNBOUNDED.days)
        for path in discover(self.codex_home, budget):
            self.pending.setdefault(str(path), None)
        return True

    def looked_at(self, path: str) -> None:
        self.pending.pop(path, None)
