"""The usage figure status bars show after the counts (`attention.NOTE_SOURCES`): the fullest window.

One short fragment for every bar: the rate-limit window closest to its limit across clients and accounts,
`codex 5 h 42 % · resets 14:00 · runs out in 1 h 20 m` (or `lasts to reset`, at the pace of the last hour:
`usage.pace`); a figure that may no longer hold says `(old)` instead of its reset and pace.
"""

from __future__ import annotations

import sqlite3
import time

from lunavect.core.times import local_text
from lunavect.usage import limits, pace


def limits_note(conn: sqlite3.Connection, now: float | None = None) -> str | None:
    now = time.time() if now is None else now
    best: tuple[float, str] | None = None
    for account in limits.read(conn, now):
        for window in account.windows:
            text = f"{account.client} {limits.window_label(window)} {window.used_percent:.0f} %"
            if window.stale:
                text += " (old)"
            else:
                if (resets := local_text(window.resets_at, "%H:%M")) != "":
                    text += f" · resets {resets}"
                text += f" · {pace.words(window.pace, window.runs_out_at, now)}"
            rank = window.used_percent - (1000.0 if window.stale else 0.0)
            if best is None or rank > best[0]:
                best = (rank, text)
    return best[1] if best is not None else None
