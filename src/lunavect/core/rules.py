"""The rules: from a session's evidence and "now" to its state. Pure: no I/O and no clock of its own.

Evidence is folded, in the order it was observed, into `Facts` (what is known about the session), and
`decide` turns facts plus the caller's clock and process liveness into a `Decision`. Both are pure, so every
rule is unit-tested with a clock the test controls and replayed exactly. Facts are small and serialisable,
so the collector keeps them in the store and never holds a session's history in memory.
"""

from __future__ import annotations

import msgspec

from lunavect.core.model import BackgroundTask, ErrorReason, Evidence, State

# Hook events lose their authority after this long without newer evidence (the guide, "How state is
# determined"): a session still "working" ten minutes after its last event is shown as unknown, not working.
EVENT_AUTHORITY_S = 600.0

# Events that prove a session is a task and not a lifecycle-only launch (the guide: "until a prompt, tool,
# response or request establishes actual task activity").
ACTIVITY_EVENTS = frozenset(
    {
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "PermissionRequest",
        "Stop",
        "StopFailure",
        "SubagentStart",
        "PreCompact",
        "Elicitation",
    }
)

# StopFailure's `error` values, as the client sends them (FACTS.md), to the reasons the guide names.
ERROR_REASONS = {
    "rate_limit": ErrorReason.LIMIT,
    "authentication_failed": ErrorReason.AUTH,
    "oauth_org_not_allowed": ErrorReason.ACCOUNT,
    "billing_error": ErrorReason.ACCOUNT,
    "overloaded": ErrorReason.SERVICE,
    "server_error": ErrorReason.SERVICE,
    "network_error": ErrorReason.UNREACHABLE,
    "connection_error": ErrorReason.UNREACHABLE,
}


def error_reason(error: str | None, detail: str | None = None) -> ErrorReason:
    """The reason shown for a failed turn. A refused connection is reported as a server error by the
    client; only its message names ECONNREFUSED, which the hook shim keeps as a detail."""
    if detail == "ECONNREFUSED":
        return ErrorReason.UNREACHABLE
    return ERROR_REASONS.get(error or "", ErrorReason.OTHER)


class Facts(msgspec.Struct, omit_defaults=True):
    """What is known about one session, folded from its evidence in observation order."""

    provider: str
    session_id: str
    first_seen: float | None = None
    last_event: str | None = None
    last_event_at: float | None = None
    # A prompt, tool, response or request has been seen: the session is a task, not a bare launch.
    active: bool = False
    phase: str = State.IDLE.value
    phase_at: float | None = None
    turn_open: bool = False
    turn_started: float | None = None
    tool: str | None = None
    tool_use_id: str | None = None
    error: str | None = None
    ended: bool = False
    background: tuple[BackgroundTask, ...] = ()
    pid: int | None = None
    pstart: float | None = None
    tty: str | None = None
    cwd: str | None = None
    transcript: str | None = None
    title: str | None = None
    basis: tuple[str, ...] = ()


class Decision(msgspec.Struct, frozen=True):
    """A session's state at one instant, as the rules decide it."""

    state: State
    listed: bool
    activity: str | None = None
    since: float | None = None
    error: ErrorReason | None = None
    background: dict[str, int] = {}
    basis: tuple[str, ...] = ()


def _with_basis(facts: Facts, source: str) -> tuple[str, ...]:
    return facts.basis if source in facts.basis else tuple(sorted((*facts.basis, source)))


def _open_turn(facts: Facts, at: float) -> None:
    if not facts.turn_open:
        facts.turn_open = True
        facts.turn_started = at


def _close_turn(facts: Facts) -> None:
    facts.turn_open = False
    facts.tool = None
    facts.tool_use_id = None


def fold(facts: Facts, ev: Evidence) -> Facts:
    """Apply one piece of evidence to a session's facts; returns a new value (the input is not changed)."""
    facts = msgspec.structs.replace(facts)
    kind = ev.kind
    if facts.first_seen is None or ev.at < facts.first_seen:
        facts.first_seen = ev.at
    facts.basis = _with_basis(facts, ev.source)
    for name in ("cwd", "transcript", "title", "tty"):
        value = getattr(ev, name)
        if value:
            setattr(facts, name, value)
    if ev.pid is not None:
        facts.pid, facts.pstart = ev.pid, ev.pstart
    if kind in ACTIVITY_EVENTS:
        facts.active = True
    if facts.last_event_at is None or ev.at >= facts.last_event_at:
        facts.last_event_at = ev.at
        facts.last_event = kind

    if kind == "SessionStart":
        facts.ended = False
    elif kind == "UserPromptSubmit":
        facts.error = None
        _open_turn(facts, ev.at)
        facts.tool = facts.tool_use_id = None
        facts.phase, facts.phase_at = State.WORKING.value, ev.at
    elif kind == "PreToolUse":
        _open_turn(facts, ev.at)
        facts.tool, facts.tool_use_id = ev.tool, ev.tool_use_id
        facts.phase, facts.phase_at = State.WORKING.value, ev.at
    elif kind in ("PostToolUse", "PostToolUseFailure"):
        # A late PostToolUse of a turn that already ended must not restart its working indicator.
        if facts.turn_open:
            if facts.tool_use_id is None or ev.tool_use_id in (None, facts.tool_use_id):
                facts.tool = facts.tool_use_id = None
            facts.phase, facts.phase_at = State.WORKING.value, ev.at
    elif kind == "Stop":
        _close_turn(facts)
        facts.phase, facts.phase_at = State.READY.value, ev.at
    elif kind == "StopFailure":
        _close_turn(facts)
        facts.error = error_reason(ev.error, ev.error_detail).value
        facts.phase, facts.phase_at = State.ERROR.value, ev.at
    elif kind == "SessionEnd":
        _close_turn(facts)
        facts.ended = True
        if facts.phase not in (State.READY.value, State.ERROR.value):
            facts.phase, facts.phase_at = State.IDLE.value, ev.at
    return facts


def decide(facts: Facts, now: float, alive: bool | None = None) -> Decision:
    """The state of a session at `now`.

    `alive` is the liveness of the agent process that reported the session (pid and start time): None when
    unknown. A session whose process is gone is never working.
    """
    listed = facts.active
    basis = facts.basis
    phase = State(facts.phase)
    if phase is State.WORKING:
        if alive is False or facts.ended:
            return Decision(State.IDLE, listed, basis=_with_basis(facts, "process"))
        if facts.last_event_at is not None and now - facts.last_event_at > EVENT_AUTHORITY_S:
            return Decision(State.UNKNOWN, listed, basis=basis)
        return Decision(
            State.WORKING,
            listed,
            activity=facts.tool or "thinking",
            since=facts.turn_started,
            basis=basis,
        )
    if phase is State.ERROR:
        return Decision(State.ERROR, listed, error=ErrorReason(facts.error or "other"), basis=basis)
    return Decision(phase, listed, basis=basis)
