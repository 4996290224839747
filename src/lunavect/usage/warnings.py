"""Which rate-limit windows just passed the warning threshold: each window warns once.

A window is one client's and account's limit until its reset: its mark is its reset time (or, when the
client does not report one, the start of the window's current length), so a window that passes 90 % warns
once however often its figure is read again, and warns again only in its next window. Marks are kept in the
store's settings, so a restart never repeats a warning. A stale figure never warns.

The notifier's kinds are transitions of sessions; this is an account's, so the notifier asks `due` for the
warnings to deliver (with the same delivery as its own kinds) and nothing else changes in it.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from lunavect.usage import limits

THRESHOLD_SETTING = "usage_warn_percent"
DEFAULT_THRESHOLD = 90.0
_MARK_PREFIX = "usage_warned:"


@dataclass(frozen=True)
class Warning:
    key: str  # client/account/window
    mark: str
    title: str
    body: str


def threshold(conn: sqlite3.Connection) -> float | None:
    """The warning threshold in percent; None when the person turned warnings off (`off` or 0)."""
    row = conn.execute("SELECT value FROM settings WHERE key = ?", (THRESHOLD_SETTING,)).fetchone()
    if row is None:
        return DEFAULT_THRESHOLD
    try:
        value = float(row[0])
    except (TypeError, ValueError):
        return None
    return value if 0 < value <= 100 else None


def _mark(window: limits.Window, at: float) -> str:
    if window.resets_at is not None:
        return f"{window.resets_at:.0f}"
    length = (window.window_minutes or 0) * 60
    return f"~{int(at // length * length)}" if length else f"~{at:.0f}"


def due(conn: sqlite3.Connection, now: float | None = None) -> list[Warning]:
    """The warnings not given yet for windows over the threshold; each is marked given as it is returned."""
    limit = threshold(conn)
    if limit is None:
        return []
    found = []
    for account in limits.read(conn, now):
        for window in account.windows:
            if window.stale or window.used_percent < limit:
                continue
            key = f"{account.client}/{account.account}/{window.name}"
            mark = _mark(window, account.at)
            row = conn.execute("SELECT value FROM settings WHERE key = ?", (_MARK_PREFIX + key,)).fetchone()
            if row is not None and row[0] == mark:
                continue
            label = limits.window_label(window)
            found.append(
                Warning(
                    key=key,
                    mark=mark,
                    title=f"{account.client}: {window.used_percent:.0f} % of the {label} limit",
                    body=f"{account.client} has used {window.used_percent:.0f} % of its {label} window",
                )
            )
    with conn:
        conn.executemany(
            "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [(_MARK_PREFIX + w.key, w.mark) for w in found],
        )
    return found
