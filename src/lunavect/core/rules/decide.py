"""Deciding a session's state at one instant from its facts, the caller's clock, the agent process's
liveness, the network and the writer proof. One handler per phase, found in a table; each says how its phase
ages (stale, offline) and what the row shows with it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lunavect.core.model import BackgroundTask, ErrorReason, State
from lunavect.core.rules.facts import (
    BACKGROUND_AUTHORITY_S,
    EVENT_AUTHORITY_S,
    LIVE_PHASES,
    OFFLINE_AFTER_S,
    Decision,
    Facts,
    event_authority_s,
)


@dataclass(frozen=True)
class _Instant:
    """What every phase's handler needs to know about `now`."""

    facts: Facts
    now: float
    # Seconds since evidence last confirmed the phase, and whether that evidence lost its authority.
    age: float
    stale: bool
    offline_since: float | None

    @property
    def listed(self) -> bool:
        return self.facts.active

    @property
    def background(self) -> dict[str, int]:
        return _counts(self.facts.background)

    def unknown(self) -> Decision:
        return Decision(State.UNKNOWN, self.listed, basis=self.facts.basis)


def _counts(tasks: tuple[BackgroundTask, ...]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for task in tasks:
        counts[task.kind] = counts.get(task.kind, 0) + 1
    return counts


def _working(i: _Instant) -> Decision:
    f = i.facts
    if i.stale:
        return i.unknown()
    if i.offline_since is not None and i.now - i.offline_since >= OFFLINE_AFTER_S:
        return Decision(State.OFFLINE, i.listed, since=f.turn_started, background=i.background, basis=f.basis)
    retrying = ErrorReason(f.retry_error) if f.retry_error else None
    return Decision(
        State.WORKING,
        i.listed,
        activity="retrying" if retrying else f.tool or "thinking",
        since=f.turn_started,
        background=i.background,
        basis=f.basis,
        error=retrying,
    )


def _background(i: _Instant) -> Decision:
    if i.age > BACKGROUND_AUTHORITY_S:
        return i.unknown()
    f = i.facts
    return Decision(State.BACKGROUND, i.listed, since=f.turn_started, background=i.background, basis=f.basis)


def _compacting(i: _Instant) -> Decision:
    if i.stale:
        return i.unknown()
    f = i.facts
    return Decision(State.COMPACTING, i.listed, since=f.compaction_started, background=i.background, basis=f.basis)


def _permission(i: _Instant) -> Decision:
    if i.stale:
        return i.unknown()
    f = i.facts
    return Decision(State.PERMISSION, i.listed, since=f.turn_started, basis=f.basis, waiting_for=f.permission_tool)


def _input(i: _Instant) -> Decision:
    f = i.facts
    if f.input_reason == "question":
        # A closing question is an inference: its own time, never an idle poll's, decides its freshness.
        if f.phase_at is not None and i.now - f.phase_at > EVENT_AUTHORITY_S:
            return Decision(State.READY, i.listed, basis=f.basis)
        return Decision(State.INPUT, i.listed, basis=f.basis, waiting_for="question")
    if i.stale:
        return i.unknown()
    return Decision(State.INPUT, i.listed, since=f.turn_started, basis=f.basis, waiting_for=f.input_reason)


def _error(i: _Instant) -> Decision:
    return Decision(State.ERROR, i.listed, error=ErrorReason(i.facts.error or "other"), basis=i.facts.basis)


PHASES: dict[State, Callable[[_Instant], Decision]] = {
    State.WORKING: _working,
    State.BACKGROUND: _background,
    State.COMPACTING: _compacting,
    State.PERMISSION: _permission,
    State.INPUT: _input,
    State.ERROR: _error,
}


def decide(
    facts: Facts,
    now: float,
    alive: bool | None = None,
    offline_since: float | None = None,
    writer: bool | None = None,
) -> Decision:
    """The state of a session at `now`.

    `alive` is the liveness of the agent process that reported the session (pid and start time; None when
    unknown): a session whose process is gone is never working, background, permission or input.
    `offline_since` is when this machine lost its network connection, or None while it has one.
    `writer` is the writer proof (Codex): True when the client still has the session's exact log open for
    writing, which keeps an unfinished response current past its freshness limit; None when unchecked.
    """
    phase = facts.phase
    if facts.archived:
        return Decision(State.IDLE, False, basis=facts.basis)  # archived in its client: not a current session
    if phase in LIVE_PHASES and (alive is False or facts.ended):
        with_process = tuple(sorted({*facts.basis, "process"})) if alive is False else facts.basis
        ended = State.READY if phase == State.INPUT and facts.input_reason == "question" else State.IDLE
        return Decision(ended, facts.active, basis=with_process)
    handler = PHASES.get(phase)
    if handler is None:  # ready and idle rest as they are
        return Decision(State(phase), facts.active, basis=facts.basis)
    confirmed = facts.confirmed_at if facts.confirmed_at is not None else (facts.last_event_at or now)
    authority = event_authority_s(facts.provider)
    unconfirmed = facts.unconfirmed_at is not None and facts.unconfirmed_at >= confirmed
    age = now - confirmed
    stale = (age > authority or unconfirmed) and writer is not True
    return handler(_Instant(facts, now, age, stale, offline_since))


def settled(facts: Facts, now: float) -> bool:
    """True when `decide` answers for these facts at every later instant what it answers at `now`, as long as
    no writer proof says the client still writes the session's log: a session at rest (ready, idle, an error),
    or one whose live phase has aged past its authority with no process to ask about (a past session that
    ended mid-turn shows unknown from then on). The collector decides such a session once, not at every tick,
    until its facts change: at rest, its work does not grow with the number of past sessions."""
    phase = facts.phase
    if phase not in LIVE_PHASES:
        return phase not in PHASES or phase == State.ERROR
    if facts.ended:
        return True
    if facts.pid is not None:
        return False  # the process may end, which ends the phase
    if phase == State.INPUT and facts.input_reason == "question":
        return facts.phase_at is not None and now - facts.phase_at > EVENT_AUTHORITY_S
    confirmed = facts.confirmed_at if facts.confirmed_at is not None else facts.last_event_at
    if confirmed is None:
        return False
    unconfirmed = facts.unconfirmed_at is not None and facts.unconfirmed_at >= confirmed
    if phase == State.BACKGROUND:
        return now - confirmed > BACKGROUND_AUTHORITY_S
    return unconfirmed or now - confirmed > event_authority_s(facts.provider)
