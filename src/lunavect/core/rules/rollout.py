"""Codex's rollout lifecycle: exact turn boundaries, written by the client itself.

With hooks, the hooks' exact events lead; a rollout boundary still ends the hooks' own open turn (the same
turn id, or none known) when it is newer than their last word, and rollout records keep a running turn fresh.
Without hooks it is the best evidence there is. Another turn's boundary never moves this one. Records that
are metadata only (a title, a folder, a client) have no handler: they say nothing about the runtime.
"""

from __future__ import annotations

from collections.abc import Callable

from lunavect.core.model import Evidence, State
from lunavect.core.rules.facts import (
    LIVE_PHASES,
    Facts,
    close_turn,
    confirm,
    error_reason,
    is_newer,
    set_phase,
    set_phase_keeping_timer,
    start_turn,
)

Handler = Callable[[Facts, Evidence], None]


def _same_turn(facts: Facts, ev: Evidence) -> bool:
    return ev.turn_id is None or facts.turn_id is None or ev.turn_id == facts.turn_id


def _turn_ended(facts: Facts, ev: Evidence) -> None:
    # A failed turn sends no hook; the SessionEnd that follows it may be read first. Its error still decides
    # that same turn's end.
    failed_then_ended = (
        ev.error is not None
        and facts.hooked
        and not facts.turn_open
        and facts.phase == State.IDLE
        and ev.turn_id is not None
        and ev.turn_id == facts.turn_id
    )
    # Codex's daemon said "idle" first: the turn is over, but only the rollout says how (done, interrupted,
    # failed). Its end of that same turn decides, even when written a moment before the daemon was read.
    catalog_ended = (
        facts.basis == ("catalog",)
        and facts.phase in (State.READY, State.IDLE)
        and ev.turn_id is not None
        and ev.turn_id == facts.turn_id
    )
    if not (failed_then_ended or catalog_ended) and (
        not is_newer(facts, ev) or not _same_turn(facts, ev) or (facts.hooked and not facts.turn_open)
    ):
        return
    if not catalog_ended and not facts.turn_open and facts.phase not in LIVE_PHASES and facts.phase != State.IDLE:
        return  # already ended (ready, a question, an error): a re-read end changes nothing
    close_turn(facts)
    if ev.error is not None:
        # A failed turn: Codex sends no hook for it; its rollout's end names the error.
        facts.error = error_reason(ev.error, None, ev.http_status).value
        set_phase(facts, State.ERROR, ev.at)
        return
    facts.error = None
    set_phase(facts, State.READY if ev.kind == "RolloutTurnComplete" else State.IDLE, ev.at)


def _turn_started(facts: Facts, ev: Evidence) -> None:
    if facts.turn_open and facts.turn_id is not None and facts.turn_id == ev.turn_id:
        if ev.kind == "RolloutTurnStarted" and facts.turn_started is None:
            facts.turn_started = ev.at  # the exact start, recovered: the timer returns
        confirm(facts, ev.at)
        return
    if not is_newer(facts, ev):
        return  # a turn that hooks or the rollout already saw end
    facts.archived = False  # unarchived and resumed
    start_turn(facts, ev.at)
    if ev.kind == "RolloutTurnSeen":
        facts.turn_started = None  # its start lies beyond what was read yet: never guess it
    facts.turn_id = ev.turn_id


def _within_turn(handler: Handler) -> Handler:
    """A record inside a turn: it speaks only of this session's open turn, and only when newer. With hooks,
    and for bare activity, it only keeps the running turn fresh."""

    def within(facts: Facts, ev: Evidence) -> None:
        if not (facts.turn_open and _same_turn(facts, ev) and is_newer(facts, ev)):
            return
        if facts.hooked or ev.kind == "RolloutActivity":
            if facts.phase in (State.WORKING, State.PERMISSION, State.INPUT, State.COMPACTING):
                confirm(facts, ev.at)
            return
        handler(facts, ev)

    return within


def _tool(facts: Facts, ev: Evidence) -> None:
    if facts.phase in (State.WORKING, State.INPUT):
        set_phase_keeping_timer(facts, State.WORKING, ev.at)
        facts.tool, facts.tool_use_id = ev.tool, ev.tool_use_id


def _input_request(facts: Facts, ev: Evidence) -> None:
    if facts.phase == State.WORKING:
        set_phase(facts, State.INPUT, ev.at)
        facts.input_reason = "elicitation"


def _archived(facts: Facts, ev: Evidence) -> None:
    close_turn(facts)
    facts.archived = True
    set_phase(facts, State.IDLE, ev.at)


def _activity(facts: Facts, ev: Evidence) -> None:
    pass  # only ever confirms a running turn (see `_within_turn`)


RECORDS: dict[str, Handler] = {
    "RolloutTurnComplete": _turn_ended,
    "RolloutTurnAborted": _turn_ended,
    "RolloutTurnStarted": _turn_started,
    "RolloutTurnSeen": _turn_started,
    "RolloutTool": _within_turn(_tool),
    "RolloutInputRequest": _within_turn(_input_request),
    "RolloutActivity": _within_turn(_activity),
    "RolloutArchived": _archived,
}


def fold_rollout(facts: Facts, ev: Evidence) -> None:
    handler = RECORDS.get(ev.kind)
    if handler is not None:
        handler(facts, ev)
