"""The recent figures of an account's rate-limit windows, kept beside its latest report: how fast each window
fills (`usage.pace`) is read from them.

A point is `(at, primary, secondary)`: a report's moment and its two windows' used percents (None for a window
it did not name). Numbers only, and bounded: a point that says what the one before it said is not kept (the
figure held), points older than `KEEP_S` before the newest go except the last of them (the figure then still
held when the pace's hour began), and at most `MAX_POINTS` stay. The status-line wrapper keeps Claude Code's in
its file, the collector Codex's in the store, through these same functions: each point is checked where it is
read back (`checked`), since a file or an older store may hold anything.

No import at all: the status-line wrapper runs it at every redraw of Claude Code's status line, without `site`.
"""

from __future__ import annotations

from lunavect.core.bounds import EARLIEST, LATEST

# How far back from the newest point the history reaches (the pace looks one hour back).
KEEP_S = 2 * 3600.0
MAX_POINTS = 240

Point = tuple[float, float | None, float | None]


def _number(value: object, low: float, high: float) -> float | None:
    """`value` as a float within [low, high] (what `bounds.bounded` and `bounds.percent` say, written for a
    history of hundreds of numbers read at every redraw): never a bool (whose class is not int's), NaN (which
    compares false) or an int out of range (compared before it is made a float, which a huge one cannot be)."""
    if (value.__class__ is float or value.__class__ is int) and low <= value <= high:
        return float(value)
    return None


def _point(raw: object) -> Point | None:
    if not (raw.__class__ is list or raw.__class__ is tuple):
        return None
    items: list[object] = raw  # type: ignore[assignment]  # a list or a tuple, as the test above says
    if len(items) != 3:
        return None
    at = _number(items[0], EARLIEST, LATEST)
    primary, secondary = _number(items[1], 0.0, 100.0), _number(items[2], 0.0, 100.0)
    if at is None or (primary is None and secondary is None):
        return None
    return (at, primary, secondary)


def checked(raw: object) -> list[Point]:
    """A history as read back: the points that are points (a believable time, percents from 0 to 100), in time
    order; anything else is dropped."""
    if not isinstance(raw, (list, tuple)):
        return []
    points = [p for p in (_point(item) for item in raw[: MAX_POINTS * 2]) if p is not None]
    return sorted(points, key=lambda p: p[0])


def merged(history: list[Point], point: Point | None) -> list[Point]:
    """`history` with `point` (a report, possibly older than the newest: reports arrive out of order), bounded
    as the module says."""
    points = sorted({*history, *([point] if point is not None else [])}, key=lambda p: p[0])
    kept: list[Point] = []
    for p in points:
        if kept and (kept[-1][1], kept[-1][2]) == (p[1], p[2]):
            continue  # the figure held: nothing new
        kept.append(p)
    if kept:
        horizon = kept[-1][0] - KEEP_S
        old = [i for i, p in enumerate(kept) if p[0] <= horizon]
        if old:
            kept = kept[old[-1] :]
    return kept[-MAX_POINTS:]


def as_json(history: list[Point]) -> str:
    """The history as JSON, written directly: it is numbers only, and a general encoder costs most of a redraw."""

    def number(value: float | None) -> str:
        return "null" if value is None else repr(value)

    return "[" + ",".join(f"[{p[0]!r},{number(p[1])},{number(p[2])}]" for p in history) + "]"


def of_window(history: list[Point], side: int) -> list[tuple[float, float]]:
    """One window's `(at, used_percent)` points (`side` 1 for the primary window, 2 for the secondary)."""
    out = []
    for p in history:
        used = p[side]
        if used is not None:
            out.append((p[0], used))
    return out
