"""What every bar (status line, tmux, tray) shows: the header counters, the errors, and the sessions that need their person.

The counters are `sessions.count_sessions` itself (the panel's and `lunavect counts`' one function), over the
list with hidden sessions included: hiding never cancels work, and internal agents are never in the snapshot's
listed rows in the first place; how many of them are other machines' is said apart (`*_elsewhere`), so a host
that sends 2,000 rows saying `input` is seen as such. The rest (errors, who needs attention, who waited
longest) is derived here once for every bar, so tmux, waybar and the tray can never disagree about which
session is the most urgent. Within a state, a session of this machine comes before another machine's: what
`lunavect next` opens here is never decided by what another host says of its own rows' times.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field

from lunavect.core.model import AWAITING_STATES, WORKING_STATES, Session, State
from lunavect.listing import hosts
from lunavect.listing.sessions import count_sessions, epoch, read_counted
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
    # Of `working` and `awaiting_input`, how many are other machines' sessions (sync).
    working_elsewhere: int = 0
    awaiting_elsewhere: int = 0
    # Sessions that need their person (`needs_you`), the most urgent first (`needs_person`).
    attention: tuple[Session, ...] = ()
    notes: tuple[str, ...] = field(default=())
    # The session `lunavect next` opens: the one that needs its person most.
    next: Session | None = None

    @property
    def urgent(self) -> Session | None:
        """The session that needs its person most: the one `next` opens."""
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


# What needs its person first: a permission prompt, then a question or form, then a failed turn; within each, the
# session that has waited longest. A ready reply needs nobody: it waits for the person's next prompt, not for them.
NEXT_ORDER = (State.PERMISSION, State.INPUT, State.ERROR)
# What every front end's "next" says when no session needs its person.
NOTHING_WAITS = "nothing needs you: no session waits for a permission or an answer, and no open session's turn failed"


def needs_you(session: Session) -> bool:
    """The one meaning of "needs you" (docs, "What needs you"), for every surface: the counters, the `a`
    filter's counter, `next` and `n`, the popup, the tray, the web page's Next and `status`. A session needs its
    person while it waits for a permission or an answer, hidden or not (hiding never cancels work: it stays
    blocked), or while its turn has failed, its client still runs and the person has neither hidden nor
    dismissed it (`core.dismissal`: seen, until its next error). A ready reply never does, nor does a row of a
    machine that fell silent (nobody knows what it does there)."""
    if hosts.silent_host_row(session):
        return False
    if session.state in AWAITING_STATES:
        return True
    return session.state == State.ERROR and session.open and not session.hidden and not session.dismissed


def waited_since(session: Session) -> float:
    """Since when a session has waited: the moment it last did anything (it entered its wait then), else its
    timer's start or its latest evidence (rows written before `last_active` was)."""
    return epoch(session.last_active) or epoch(session.since) or epoch(session.updated) or 0.0


def _wait_order(session: Session) -> tuple[bool, float]:
    """Within one state: this machine's sessions first, then the longest wait."""
    return hosts.elsewhere(session), waited_since(session)


def needs_person(sessions: list[Session]) -> list[Session]:
    """The sessions that need their person (`needs_you`), the most urgent first (`NEXT_ORDER`, then this
    machine's before other machines', then the longest wait): what `lunavect next` opens, the popup lists and
    `status` names."""
    waiting = [s for s in sessions if needs_you(s)]
    return sorted(waiting, key=lambda s: (NEXT_ORDER.index(s.state), *_wait_order(s), s.id))


def summarize_sessions(sessions: list[Session], notes: tuple[str, ...] = ()) -> Summary:
    """The summary of a list that includes hidden sessions."""
    totals = count_sessions(sessions)
    most = needs_person(sessions)
    elsewhere = [s for s in sessions if hosts.elsewhere(s) and not hosts.silent_host_row(s)]
    return Summary(
        working=totals["working"],
        awaiting_input=totals["awaiting_input"],
        errors=sum(1 for s in most if s.state == State.ERROR),
        working_elsewhere=sum(s.state in WORKING_STATES for s in elsewhere),
        awaiting_elsewhere=sum(s.state in AWAITING_STATES for s in elsewhere),
        attention=tuple(most),
        notes=notes,
        next=most[0] if most else None,
    )


def summarize(conn: sqlite3.Connection, now: float | None = None) -> Summary:
    notes = tuple(text for source in NOTE_SOURCES if (text := source(conn)))
    return summarize_sessions(read_counted(conn, now), notes)
