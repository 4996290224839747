"""When a session is hidden from the list without the person hiding it, and when it leaves the hidden list.

Both rules are evaluated when the list is read, with the reader's clock, so every front end agrees at every
instant and nothing has to run in the background to apply them. Pure: the caller passes `now`.
"""

from __future__ import annotations

from lunavect.core.model import State

DAY_S = 86400.0
# The guide ("Find and arrange sessions"): once a complete client catalog has not listed a hidden session for
# 35 days, it leaves the hidden list.
HIDDEN_RETENTION_S = 35 * DAY_S

# Automatic hiding applies only to sessions whose turn is over. Working, waiting and unknown sessions are never
# hidden just because their last event is old: an old event says nothing about whether they still matter.
INACTIVE_STATES = frozenset({State.READY, State.IDLE, State.ERROR})

# The intervals the settings offer for automatic hiding, in seconds (the store accepts any positive value).
AUTO_HIDE_CHOICES: tuple[tuple[str, float], ...] = (
    ("1 hour", 3600.0),
    ("8 hours", 8 * 3600.0),
    ("1 day", DAY_S),
    ("3 days", 3 * DAY_S),
    ("1 week", 7 * DAY_S),
    ("30 days", 30 * DAY_S),
)


def hides_automatically(
    state: State,
    last_activity: float | None,
    now: float,
    after: float | None,
    shown_at: float | None = None,
) -> bool:
    """True when automatic hiding (`after` seconds; None is off) hides a session at `now`.

    Inactivity counts from the session's last activity, or from when the person last restored it from the
    hidden list (otherwise a restored session would vanish again at once).
    """
    if after is None or after <= 0 or last_activity is None:
        return False
    if state not in INACTIVE_STATES:
        return False
    since = max(last_activity, shown_at) if shown_at is not None else last_activity
    return now - since >= after


def leaves_hidden_list(
    *,
    catalog_complete_at: float | None,
    hidden_at: float | None = None,
    listed_at: float | None = None,
    last_activity: float | None = None,
) -> bool:
    """True when a hidden session no longer belongs in the hidden list.

    Only a complete catalog of the session's client (one that lists every session it knows, such as Codex's
    thread list) can prove that a session is gone: a session stays hidden while any source still lists it or
    reports about it. `catalog_complete_at` is the latest time such a catalog was read in full; the session
    leaves once that catalog has gone 35 days without listing it.
    """
    if catalog_complete_at is None:
        return False
    seen = [t for t in (hidden_at, listed_at, last_activity) if t is not None]
    if not seen:
        return True
    return catalog_complete_at - max(seen) >= HIDDEN_RETENTION_S
