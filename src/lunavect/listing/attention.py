"""What every bar (status line, tmux, tray) shows: the header counters, the errors, and the sessions that need their person.

The counters are `sessions.count_sessions` itself (the panel's and `lunavect counts`' one function), over the
list with hidden sessions included: hiding never cancels work, and internal agents are never in the snapshot's
listed rows in the first place. The rest (errors, who needs attention, who waited longest) is derived here once
for every bar, so tmux, waybar and the tray can never disagree about which session is the most urgent.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field

from lunavect.core.model import AWAITING_STATES, Session, State
from lunavect.listing import hosts
from lunavect.listing.sessions import count_sessions, epoch, read_sessions
from lunavect.usage.bar import limits_note

# Extra fragments a bar shows after the counts (e.g. a usage limit: "5 h 42 % · resets 14:00"). Each reads the
# store and returns a short text or None; the bars render whatever they return, in order, so a new fact is one
# entry here and no renderer changes.
NoteSource = Callable[[sqlite3.Connection], str | None]
NOTE_SOURCES: list[NoteSource] = [limits_note]


@dataclass(frozen=True)
class Summary:
    working: int = 0
    awaiting_input: int = 0
    errors: int = 0
    # Sessions that need their person: awaiting ones first (longest wait first), then errors.
    attention: tuple[Session, ...] = ()
    notes: tuple[str, ...] = field(default=())
    # The session `lunavect next` opens: the one that needs its person most (`needs_person`).
    next: Session | None = None

    @property
    def urgent(self) -> Session | None:
        """The session that has waited longest for its person."""
        return self.attention[0] if self.attention else None

    @property
    def level(self) -> str:
        """One word for styling a bar: the most pressing thing there is."""
        if self.awaiting_input:
            return "awaiting"
        if self.errors:
            return "error"
        if self.working:
            return "working"
        return "idle"


# What `lunavect next` opens first: a permission prompt, then a question or form, then a failed turn, then a
# ready reply; within each, the session that has waited longest.
NEXT_ORDER = (State.PERMISSION, State.INPUT, State.ERROR, State.READY)
# What every front end's "next" says when no session waits for its person.
NOTHING_WAITS = "nothing needs you: no session waits for a permission, an answer, or a look at its error or reply"


def waited_since(session: Session) -> float:
    """Since when a session has waited: the moment it last did anything (it entered its wait then), else its
    timer's start or its latest evidence (rows written before `last_active` was)."""
    return epoch(session.last_active) or epoch(session.since) or epoch(session.updated) or 0.0


def needs_person(sessions: list[Session]) -> list[Session]:
    """The sessions `lunavect next` would open, the most urgent first (`NEXT_ORDER`, then the longest wait).
    Hidden sessions and those of a machine that fell silent are left out, and a failed turn or a ready reply
    counts only while its client is open: a reply from February whose client ended waits for nobody."""
    waiting = [
        s
        for s in sessions
        if s.state in NEXT_ORDER
        and not s.hidden
        and not hosts.silent_host_row(s)
        and (s.state in AWAITING_STATES or s.open)
    ]
    return sorted(waiting, key=lambda s: (NEXT_ORDER.index(s.state), waited_since(s), s.id))


def summarize_sessions(sessions: list[Session], notes: tuple[str, ...] = ()) -> Summary:
    """The summary of a list that includes hidden sessions."""
    totals = count_sessions(sessions)
    current = [s for s in sessions if not hosts.silent_host_row(s)]
    awaiting = sorted((s for s in current if s.state in AWAITING_STATES), key=waited_since)
    errors = sorted((s for s in current if s.state == State.ERROR), key=waited_since)
    most = needs_person(sessions)
    return Summary(
        working=totals["working"],
        awaiting_input=totals["awaiting_input"],
        errors=len(errors),
        attention=tuple(awaiting + errors),
        notes=notes,
        next=most[0] if most else None,
    )


def summarize(conn: sqlite3.Connection, now: float | None = None) -> Summary:
    notes = tuple(text for source in NOTE_SOURCES if (text := source(conn)))
    return summarize_sessions(read_sessions(conn, include_hidden=True, now=now), notes)
