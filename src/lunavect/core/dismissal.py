"""Dismissing a row: the person has seen a finished reply or a failed turn, and it needs them no more.

A ready reply or an API error waits for a look; once the person has had it, it should stop counting as
something that needs them (`lunavect next`, the bars' error count, the tray's first item) without hiding the
row, which would hide its later work too. So a dismissal names what it dismissed: the row's state and the
moment it entered it (`last_active`). It holds while the row still shows exactly that; the session's next
reply or error is news again, and needs its person as before. Pure: it compares what is stored with the row.
"""

from __future__ import annotations

from lunavect.core.model import Session, State

# The states a person can dismiss: the ones that wait only for a look. A permission or a question waits for an
# answer, and a working session for nothing.
DISMISSABLE = frozenset({State.READY, State.ERROR})


def mark_of(session: Session) -> str | None:
    """What a dismissal of the row as it is now records, or None when its state cannot be dismissed."""
    if session.state not in DISMISSABLE:
        return None
    return f"{session.state}@{session.last_active or session.updated or ''}"


def holds(mark: str | None, session: Session) -> bool:
    """Whether a recorded dismissal still applies to the row: it shows what was dismissed, unchanged."""
    return mark is not None and mark == mark_of(session)
