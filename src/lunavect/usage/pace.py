"""How long a rate-limit window lasts at the pace of the last hour: to its reset, or until it runs out.

Pure: the recorded figures of one window and the caller's clock in, a verdict out. A window's figure only
grows until the window resets (both clients' windows are fixed: they reset at `resets_at`, when the figure
starts again from nothing), and it holds between two reports: the figure at any moment is the last one
reported before it. So the pace of the last hour is the figure now less the figure an hour ago, over that
hour; and when the window began within the hour, the figure at its start was nothing. A window whose figure
an hour ago is unknown (its first report came within the hour) is paced from its first report, once that
covers at least `MIN_SPAN_S`; with less than that, the pace is unknown.

A window lasts when it would run out only after it ends: its reset when that is known, else its length from
now (it resets within its length), else the longest window any client may report. A figure that rose by next
to nothing projects its end near 1e305 s away, which said "runs out in 9999 d".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import msgspec

from lunavect.core.bounds import MAX_WINDOW_MINUTES
from lunavect.core.times import span

# The pace is the figure's growth over this much of the past.
PACE_S = 3600.0
# A pace from less history than this says too little: unknown.
MIN_SPAN_S = 900.0
# A report whose reset differs from the window's by more than this belongs to another window.
SAME_WINDOW_S = 600.0

Verdict = Literal["lasts", "runs_out", "unknown"]


class Pace(msgspec.Struct, frozen=True):
    """`lasts` to the reset, `runs_out` at `runs_out_at` (epoch s) before it, or `unknown`."""

    verdict: Verdict
    runs_out_at: float | None = None


UNKNOWN = Pace("unknown")


def _this_window(
    points: Sequence[tuple[float, float]], window_minutes: int | None, resets_at: float | None
) -> tuple[list[tuple[float, float]], float | None]:
    """The reports of the current window, oldest first, and when it began (None when that is not known): the
    points after its start, and after the last fall of the figure (a reset nobody reported the time of)."""
    start = resets_at - window_minutes * 60 if resets_at is not None and window_minutes else None
    ordered = sorted(p for p in points if start is None or p[0] >= start - SAME_WINDOW_S)
    kept: list[tuple[float, float]] = []
    for at, used in ordered:
        if kept and used < kept[-1][1]:
            kept = []  # the figure fell: a new window began, whose start is known only from its reset
        kept.append((at, used))
    return kept, start


def pace(
    points: Sequence[tuple[float, float]],
    now: float,
    *,
    window_minutes: int | None = None,
    resets_at: float | None = None,
) -> Pace:
    """The verdict for one window from its recorded `(at, used_percent)` points (the current figure among them)
    at `now`. Points from after `now` are not yet known; a window whose reset has passed is not paced."""
    if resets_at is not None and resets_at <= now:
        return UNKNOWN
    known = [(at, used) for at, used in points if at <= now]
    window, start = _this_window(known, window_minutes, resets_at)
    if not window:
        return UNKNOWN
    latest = window[-1][1]
    horizon = now - PACE_S
    before = [p for p in window if p[0] <= horizon]
    if before:
        base_at, base_used = horizon, before[-1][1]
    elif start is not None and start >= horizon:
        base_at, base_used = start, 0.0
    elif now - window[0][0] >= MIN_SPAN_S:
        base_at, base_used = window[0]
    else:
        return UNKNOWN
    if now - base_at < MIN_SPAN_S:
        # The window began moments ago: its whole figure in a few minutes is no pace to project.
        return UNKNOWN
    if latest >= 100.0:
        return Pace("runs_out", now)
    rate = (latest - base_used) / (now - base_at)  # percent per second
    if rate <= 0:
        return Pace("lasts")
    runs_out_at = now + (100.0 - latest) / rate
    ends = resets_at if resets_at is not None else now + (window_minutes or MAX_WINDOW_MINUTES) * 60
    if not runs_out_at < ends:  # past the window's end (or no finite time at all)
        return Pace("lasts")
    return Pace("runs_out", runs_out_at)


def words(verdict: str, runs_out_at: float | None, now: float) -> str:
    """The verdict as every front end says it beside its window: `lasts to reset`, `runs out in 1 h 20 m`,
    `used up`, `pace unknown`."""
    if verdict == "lasts":
        return "lasts to reset"
    if verdict == "runs_out" and runs_out_at is not None:
        left = runs_out_at - now
        return "used up" if left < 60 else f"runs out in {span(left)}"
    return "pace unknown"
