"""Usage warnings as notifications: an account's rate-limit window that reached the person's threshold.

They are not a session's transition, so the decider never sees them: the notifier asks `due` after each
batch of transitions and at least every `CHECK_S` (Claude Code's figures come from the status-line wrapper's
file, which no transition announces), and delivers what it returns the way it delivers its own. Each window
warns once (`usage.warnings` keeps the marks in the store). The text is numbers only.
"""

from __future__ import annotations

import sqlite3

from lunavect.core.times import local_text
from lunavect.notify.decide import Notification, client_name
from lunavect.notify.settings import NotifySettings
from lunavect.usage import warnings

# How often the notifier looks at the rate-limit windows when no transition came: Claude Code's figure is
# written after its reply's transitions, so a warning comes this long after it at most. A look costs about
# 25 µs (bench/statusline.py).
CHECK_S = 15.0


def note_of(warning: warnings.Warning) -> Notification:
    """`Codex: 5 h window at 91 %`, with when it resets and, when the client names several, which account."""
    title = f"{client_name(warning.client, None)}: {warning.window} window at {warning.used_percent:.0f} %"
    parts = []
    resets = local_text(warning.resets_at, "%a %H:%M")
    if resets:
        parts.append(f"resets {resets}")
    if warning.account not in ("default", warning.client):
        parts.append(f"account {warning.account}")
    limit: dict[str, object] = {
        "client": warning.client,
        "account": warning.account,
        "window": warning.window,
        "used_percent": warning.used_percent,
        "resets_at": warning.resets_at,
    }
    return Notification(title=title, body=" · ".join(parts), items=(), limit=limit)


def due(conn: sqlite3.Connection, settings: NotifySettings, now: float) -> list[Notification]:
    """The usage warnings to deliver now under the person's settings (each marked sent as it is returned)."""
    if not settings.enabled:
        return []
    return [note_of(w) for w in warnings.due(conn, settings.usage_percent, now)]
