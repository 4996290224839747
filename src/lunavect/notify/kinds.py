"""What notifies: one table of kinds, each a transition test, its wording and whether a new installation has it on.

A kind is a row, not a branch in the decider, so that another kind (a usage threshold, a sync host that went
quiet) is one more row.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lunavect.core.model import WORKING_STATES, Session, State
from lunavect.core.state_words import error_words


@dataclass(frozen=True)
class Kind:
    name: str
    # Does the move from `old` (None: the row is new) to this row's state make this kind of notification?
    enters: Callable[[State | None, Session], bool]
    # What the session needs, in a few words (never its prompt, reply or command).
    needs: Callable[[Session], str]
    default_on: bool
    # Only for a state change evidence backs right now: a session read late from old files (a first start
    # over months of transcripts) must not notify. A kind that is about evidence ageing has no fresh evidence.
    needs_fresh_evidence: bool = True
    # Where several notifications wait at once, the most urgent one's session is the one "Open" returns to.
    urgency: int = 0
    # A reply to a background task's end, after the person's reply had ended, stays silent (the guide).
    silent_for_task_replies: bool = False
    # The state the notification is about: once its session leaves it, the notification's reason is gone.
    about: State | None = None


def _entered(state: State) -> Callable[[State | None, Session], bool]:
    return lambda old, new: new.state == state and old != state


def _needs_permission(s: Session) -> str:
    return f"permission for {s.waiting_for}" if s.waiting_for else "permission needed"


def _needs_input(s: Session) -> str:
    if s.waiting_for in (None, "question"):
        return "input needed: a question for you"
    return f"input needed: {s.waiting_for}"


def _error(s: Session) -> str:
    return f"API error: {error_words(s.error, s.provider)}"


def _went_stale(old: State | None, new: Session) -> bool:
    return new.state == State.UNKNOWN and old in WORKING_STATES


KINDS: tuple[Kind, ...] = (
    Kind(
        "permission", _entered(State.PERMISSION), _needs_permission, default_on=True, urgency=3, about=State.PERMISSION
    ),
    Kind("input", _entered(State.INPUT), _needs_input, default_on=True, urgency=2, about=State.INPUT),
    Kind("error", _entered(State.ERROR), _error, default_on=True, urgency=1, about=State.ERROR),
    Kind(
        "ready",
        _entered(State.READY),
        lambda s: "response ready",
        default_on=True,
        silent_for_task_replies=True,
        about=State.READY,
    ),
    Kind(
        "stale",
        _went_stale,
        lambda s: "was working, state now unknown",
        default_on=False,
        needs_fresh_evidence=False,
        about=State.UNKNOWN,
    ),
)
BY_NAME = {kind.name: kind for kind in KINDS}


def kind_of(old: State | None, new: Session) -> Kind | None:
    """The kind of notification this transition makes, if any (the table's first match)."""
    for kind in KINDS:
        if kind.enters(old, new):
            return kind
    return None


def still_holds(kind_name: str, needs: str, session: Session | None) -> bool:
    """Whether what a notification said of a session still holds: the session is still in the state the
    notification is about and needs the same thing (a permission for the same tool). An answered prompt, an
    approval in the pane, a new prompt or a session gone make it stale: it is withdrawn."""
    kind = BY_NAME.get(kind_name)
    if kind is None or session is None or kind.about is None:
        return False
    return session.state == kind.about and kind.needs(session) == needs
