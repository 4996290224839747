"""The client's live catalog: coarse, but it sees what hooks cannot (an interrupt, a denied prompt).

A catalog row says `idle`, `busy` or `waiting`. With hooks, it only proves what they cannot see, and only when
it is newer than their last word; without hooks it is the best evidence there is. One table per case, from
the row's status to its handler.
"""

from __future__ import annotations

from collections.abc import Callable

from lunavect.core.model import Evidence, State
from lunavect.core.rules.facts import (
    CATALOG_MARGIN_S,
    Facts,
    confirm,
    cut_short,
    is_newer,
    open_turn,
    set_phase,
    wait_answered,
    waits_in_dialog,
)

Handler = Callable[[Facts, Evidence], None]

# Phases a `busy` or `waiting` row confirms while hooks report the session.
_CONFIRMED = (State.WORKING, State.PERMISSION, State.INPUT, State.BACKGROUND, State.COMPACTING)


def _newer_than_hooks(facts: Facts, ev: Evidence) -> bool:
    return facts.confirmed_at is None or ev.at > facts.confirmed_at + CATALOG_MARGIN_S


def _this_turns_row(facts: Facts, before: float, *statuses: str) -> bool:
    """The row before this one has one of `statuses`, was stamped before `before`, and belongs to this turn (read
    at its start or later, not one left from an earlier turn whose idle no tick read)."""
    was_at = facts.catalog_at
    if facts.catalog_status not in statuses or was_at is None or was_at >= before:
        return False
    return facts.turn_started is None or was_at >= facts.turn_started - CATALOG_MARGIN_S


def _ended_the_turn(facts: Facts, ev: Evidence) -> bool:
    """An `idle` ends the turn when it is newer than the hooks' last word by the margin, or newer than it at all
    and than this turn's own `busy` or `waiting` before it: the client stamps a row only when its status changes,
    so that idle is the turn's end however soon it came (Copilot CLI's double Esc within a second of the prompt,
    a permission denied as soon as it was asked)."""
    if _newer_than_hooks(facts, ev):
        return True
    after_hooks = facts.confirmed_at is None or ev.at > facts.confirmed_at
    return after_hooks and _this_turns_row(facts, ev.at, "busy", "waiting")


def _hooked_idle(facts: Facts, ev: Evidence) -> None:
    if _ended_the_turn(facts, ev) and (facts.phase in (State.WORKING, State.PERMISSION) or waits_in_dialog(facts)):
        # The turn ended without a Stop (Esc, a denied permission prompt, a dialog that stopped the turn).
        cut_short(facts, State.IDLE, ev.at)


def _hooked_busy(facts: Facts, ev: Evidence) -> None:
    if (facts.phase == State.PERMISSION or waits_in_dialog(facts)) and _left_the_wait(facts, ev):
        # Approved (or answered) in the client: its tool runs now, and no hook says so until it ends.
        wait_answered(facts, ev.at)
    elif facts.phase in _CONFIRMED:
        confirm(facts, ev.at)


def _left_the_wait(facts: Facts, ev: Evidence) -> bool:
    """A `busy` row says the wait is over: it is newer than the wait's start by the margin, or the catalog
    itself showed the wait since it began (then any later `busy` is its end, however quickly it came), or it
    is a `busy` newer than the `busy` read before it. The client stamps a row only when its status changes, so
    a second `busy` came back from another status: the wait, answered before a tick read it (an approval
    within a second of the prompt left a 20-second command "Permission needed" for its whole run).
    `facts.catalog_status` is still the row before this one."""
    start = facts.phase_at if facts.phase_at is not None else ev.at
    if ev.at <= start:
        return False  # a row from before the wait (the turn's own busy) says nothing of its end
    was_at = facts.catalog_at
    if was_at is None:
        return ev.at > start + CATALOG_MARGIN_S
    showed_wait = facts.catalog_status == "waiting" and was_at >= start - CATALOG_MARGIN_S
    busy_again = _this_turns_row(facts, ev.at, "busy")
    return showed_wait or busy_again or ev.at > start + CATALOG_MARGIN_S


def _hooked_waiting(facts: Facts, ev: Evidence) -> None:
    if _newer_than_hooks(facts, ev) and facts.phase == State.WORKING:
        # The client waits for its person, and no hook said so (a dialog of its own).
        _enter_wait(facts, ev)
    elif facts.phase in _CONFIRMED:
        confirm(facts, ev.at)


def _busy(facts: Facts, ev: Evidence) -> None:
    if not is_newer(facts, ev):
        return  # read before the turn's end was recorded: it reopens nothing
    if facts.phase != State.WORKING:
        open_turn(facts, ev.at)
        set_phase(facts, State.WORKING, ev.at)
    else:
        confirm(facts, ev.at)
    facts.active = True


def _waiting(facts: Facts, ev: Evidence) -> None:
    if not is_newer(facts, ev):
        return
    _enter_wait(facts, ev)
    facts.active = True


def _idle(facts: Facts, ev: Evidence) -> None:
    if facts.phase in (State.WORKING, State.PERMISSION) or (
        facts.phase == State.INPUT and facts.input_reason != "question"
    ):
        cut_short(facts, State.READY if facts.phase == State.WORKING else State.IDLE, ev.at)


def _enter_wait(facts: Facts, ev: Evidence) -> None:
    """The catalog's `waiting` with its `waitingFor`: a permission prompt, or another wait for the person."""
    wants = (ev.waiting_for or "").lower()
    turn_started = facts.turn_started if facts.turn_open else ev.at
    if "permission" in wants or wants.startswith("approve"):
        if facts.phase != State.PERMISSION:
            set_phase(facts, State.PERMISSION, ev.at)
    elif facts.phase != State.INPUT:
        set_phase(facts, State.INPUT, ev.at)
        facts.input_reason = "dialog"
    facts.turn_open = True
    facts.turn_started = turn_started
    confirm(facts, ev.at)


WITH_HOOKS: dict[str, Handler] = {"idle": _hooked_idle, "busy": _hooked_busy, "waiting": _hooked_waiting}
WITHOUT_HOOKS: dict[str, Handler] = {"idle": _idle, "busy": _busy, "waiting": _waiting}


def fold_catalog(facts: Facts, ev: Evidence) -> None:
    if ev.kind == "CatalogUnconfirmed":
        facts.unconfirmed_at = ev.at
        return
    status = ev.status  # idle | busy | waiting
    if status is None:
        return  # metadata only (a title, a folder): no statement about the runtime
    handler = (WITH_HOOKS if facts.hooked else WITHOUT_HOOKS).get(status)
    if handler is not None:
        handler(facts, ev)  # it sees the row before this one in `facts.catalog_status`
    facts.catalog_status, facts.catalog_at = status, ev.at
