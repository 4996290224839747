"""The person's order of the list, as numbers that sort: where a moved row goes, without renumbering others.

Pinned rows sort by their position, ascending. Unpinned rows sort newest first by their last activity (what
their row shows: a prompt, a tool, a reply, a request), so a new session appears at the top; a row the person
moved gets a fixed key in that same time scale, so it keeps its place among older rows while newer activity
still rises above it. Both are mapped onto one ascending "rank" so that moving a row is the same arithmetic in
either group. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence

# Below this gap two neighbours are renumbered before a row goes between them (floats run out of room).
MIN_GAP = 1e-6


def rank(pinned: bool, position: float | None, last_activity: float) -> float:
    """Ascending sort value of a row within its group (pinned rows come first in any case)."""
    if pinned:
        return position if position is not None else float("inf")
    return -(position if position is not None else last_activity)


def position_for_rank(pinned: bool, value: float) -> float:
    """The stored position that gives a row `value` as its rank."""
    return value if pinned else -value


def rank_between(before: float | None, after: float | None) -> float | None:
    """A rank strictly between two neighbours (None for a missing one), or None when there is no room."""
    if before is None and after is None:
        return 0.0
    if before is None:
        assert after is not None
        return after - 1.0
    if after is None:
        return before + 1.0
    if after - before < MIN_GAP:
        return None
    middle = (before + after) / 2
    return middle if before < middle < after else None


def renumbered(ranks: Sequence[float]) -> list[float]:
    """Evenly spaced ranks in the same order, anchored at the first one (keeps the group where it was)."""
    if not ranks:
        return []
    start = ranks[0]
    return [start + index for index in range(len(ranks))]
