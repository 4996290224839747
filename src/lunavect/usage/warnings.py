"""Which rate-limit windows just passed the warning threshold: each window warns once.

A window is one client's and account's limit until its reset. A warning's mark is the window's reset time (or,
when the client reports none, the start of the window's current length); a later report of the same window
warns again only once its reset moved on by at least half the window's length, so a reset time that a client
rounds or recomputes differently from one report to the next never warns twice, while the next window (whose
reset is a whole window later) does. Marks are kept in the store's settings, so a restart never repeats a
warning. A stale figure never warns.

The threshold is the person's (`notify.settings`, `usage_percent`): the notifier passes it in and delivers
what `due` returns with its other notifications. Numbers only: a warning holds no text of any message.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from lunavect import store
from lunavect.usage import limits

DEFAULT_THRESHOLD = 90.0
_MARK_PREFIX = "usage_warned:"
# When the window's length is not reported: a reset this much later is another window.
_SLACK_UNKNOWN_S = 60.0


@dataclass(frozen=True)
class Warning:
    key: str  # client/account/window
    mark: str
    client: str
    account: str
    window: str  # its length as people say it: "5 h", "7 d"
    used_percent: float
    resets_at: float | None
    at: float  # when the client reported the figure


def _mark(window: limits.Window, at: float) -> str:
    if window.resets_at is not None:
        return f"{window.resets_at:.0f}"
    length = (window.window_minutes or 0) * 60
    return f"~{int(at // length * length)}" if length else f"~{at:.0f}"


def _same_window(stored: str, mark: str, window: limits.Window) -> bool:
    """True when `mark` names the window `stored` already warned for (or an older one)."""
    if stored == mark:
        return True
    if stored.startswith("~") or mark.startswith("~"):
        return False
    slack = window.window_minutes * 30.0 if window.window_minutes else _SLACK_UNKNOWN_S
    try:
        return float(mark) < float(stored) + slack
    except ValueError:
        return False


def due(
    conn: sqlite3.Connection, threshold: float | None, now: float | None = None, folder: Path | None = None
) -> list[Warning]:
    """The warnings not given yet for windows at or over `threshold` percent (None: warnings are off); each is
    marked given in the store as it is returned (`folder`: the status-line wrapper's, as `limits.read` takes)."""
    if threshold is None or not 0 < threshold <= 100:
        return []
    found = []
    for account in limits.read(conn, now, folder):
        for window in account.windows:
            if window.stale or window.used_percent < threshold:
                continue
            key = f"{account.client}/{account.account}/{window.name}"
            mark = _mark(window, account.at)
            marked = store.get_setting(conn, _MARK_PREFIX + key)
            if marked is not None and _same_window(marked, mark, window):
                continue
            found.append(
                Warning(
                    key=key,
                    mark=mark,
                    client=account.client,
                    account=account.account,
                    window=limits.window_label(window),
                    used_percent=window.used_percent,
                    resets_at=window.resets_at,
                    at=account.at,
                )
            )
    if found:
        store.set_settings(conn, {_MARK_PREFIX + w.key: w.mark for w in found})
    return found
