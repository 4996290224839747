"""The rules: from a session's evidence and "now" to its state. Pure: no I/O and no clock of its own.

Evidence is folded, in the order it was observed, into `Facts` (what is known about the session), and
`decide` turns facts plus the caller's clock, the agent process's liveness and the network's state into a
`Decision`. Both are pure, so every rule of the guide is unit-tested with a clock the test controls and
replayed exactly. Facts are small and serialisable, so the collector keeps them in the store and never holds
a session's history in memory.

Sources of evidence, most exact first: the agent's own hooks (`source="hook"`), the client's live catalog
(`"catalog"`), its transcript (`"transcript"`). When a hook reports a session, its exact events win: the
coarser sources only prove what the hooks cannot see (an Esc interrupt, a denied permission prompt), or
describe sessions that have no hooks at all.
"""

from __future__ import annotations

import msgspec

from lunavect.core.model import BackgroundTask, ErrorReason, Evidence, State

# Hook events lose their authority after this long without newer evidence (the guide, "How state is
# determined"): a session still "working" ten minutes after its last event is unknown, not working.
EVENT_AUTHORITY_S = 600.0
# A pause while Claude's own background work runs stays current this long without events: it covers long
# renders and builds (the guide, "Background tasks in Claude").
BACKGROUND_AUTHORITY_S = 3600.0
# No network for at least this long while a session works shows "No network".
OFFLINE_AFTER_S = 10.0
# A catalog row must be this much newer than the last hook event to prove that a turn ended.
CATALOG_MARGIN_S = 1.0
# Codex events go stale after two minutes without fresh evidence, unless Codex still has the session's rollout
# open for writing (the guide, "Codex log freshness"); other providers keep the ten-minute hook limit.
EVENT_AUTHORITY_BY_PROVIDER = {"codex": 120.0}

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
        "TranscriptPrompt",
        "TranscriptResponse",
        "TranscriptApiError",
        "TranscriptToolUse",
        "TranscriptToolResult",
        "RolloutTurnStarted",
        "RolloutTurnSeen",
        "RolloutTurnComplete",
        "RolloutTurnAborted",
        "RolloutTool",
        "RolloutInputRequest",
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
# HTTP statuses of the transcript's API error records, for sessions seen without hooks.
STATUS_REASONS = {401: ErrorReason.AUTH, 403: ErrorReason.AUTH, 429: ErrorReason.LIMIT, 402: ErrorReason.ACCOUNT}

# Background work kinds that hold a finished reply: the client wakes the session when they end.
HOLDING_STATUSES = frozenset({"running", "pending", "starting"})

# Phases, as stored in `Facts.phase`.
WORKING, BACKGROUND, COMPACTING = State.WORKING.value, State.BACKGROUND.value, State.COMPACTING.value
PERMISSION, INPUT, READY = State.PERMISSION.value, State.INPUT.value, State.READY.value
IDLE, ERROR = State.IDLE.value, State.ERROR.value
# Phases in which the agent process must be alive for the phase to be true.
LIVE_PHASES = frozenset({WORKING, BACKGROUND, COMPACTING, PERMISSION, INPUT})


def error_reason(error: str | None, detail: str | None = None, status: int | None = None) -> ErrorReason:
    """The reason shown for a failed turn. A refused connection is reported as a server error by the
    client; only its message names ECONNREFUSED, which the hook shim keeps as a detail."""
    if detail == "ECONNREFUSED":
        return ErrorReason.UNREACHABLE
    if error in ERROR_REASONS:
        return ERROR_REASONS[error]
    if status is not None:
        if status in STATUS_REASONS:
            return STATUS_REASONS[status]
        if status >= 500:
            return ErrorReason.SERVICE
    return ErrorReason.OTHER


class Facts(msgspec.Struct, omit_defaults=True):
    """What is known about one session, folded from its evidence in observation order."""

    provider: str
    session_id: str
    first_seen: float | None = None
    last_event: str | None = None
    last_event_at: float | None = None
    # A prompt, tool, response or request has been seen: the session is a task, not a bare launch.
    active: bool = False
    hooked: bool = False
    phase: str = IDLE
    # When the current phase was entered, and when evidence last confirmed it (idle polls never do).
    phase_at: float | None = None
    confirmed_at: float | None = None
    turn_open: bool = False
    turn_started: float | None = None
    tool: str | None = None
    tool_use_id: str | None = None
    # Tools whose PreToolUse was seen in this turn and whose end was not, as (tool_use_id, name).
    tools_running: tuple[tuple[str, str], ...] = ()
    permission_tool: str | None = None
    permission_tool_use_id: str | None = None
    # The last PermissionRequest: its `permission_prompt` Notification follows seconds later, possibly after
    # the person already answered, and must not bring the answered prompt back.
    permission_requested_at: float | None = None
    # Why input is needed: "question" (a closing question), "elicitation" (an MCP form) or "link".
    input_reason: str | None = None
    # The time of a closing question that later evidence superseded: it may never come back.
    superseded_question_at: float | None = None
    compaction_trigger: str | None = None
    compaction_started: float | None = None
    error: str | None = None
    ended: bool = False
    # Background work: the exact set from the last Stop/SubagentStop, plus what started since.
    background: tuple[BackgroundTask, ...] = ()
    reports_background: bool = False
    catalog_status: str | None = None
    catalog_at: float | None = None
    # The client's own id of the current turn (Codex), so that another turn's end never closes this one.
    turn_id: str | None = None
    # When a catalog could not confirm the session's runtime evidence: it is stale until fresh evidence.
    unconfirmed_at: float | None = None
    # Which client runs the session (e.g. "desktop", "cli", "exec"), when its metadata proves it.
    client: str | None = None
    pid: int | None = None
    pstart: float | None = None
    tty: str | None = None
    cwd: str | None = None
    transcript: str | None = None
    title: str | None = None
    branch: str | None = None
    version: str | None = None
    entrypoint: str | None = None
    tmux: str | None = None
    # Which kind of evidence decided the current phase (hook, catalog, transcript, rollout).
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
    # Why input is needed (question, elicitation, link) or which tool awaits permission.
    waiting_for: str | None = None


# -- folding ----------------------------------------------------------------------------------------------


def _set_phase(facts: Facts, phase: str, at: float) -> None:
    if facts.phase == INPUT and facts.input_reason == "question" and phase != INPUT:
        facts.superseded_question_at = facts.phase_at
    if phase != INPUT:
        facts.input_reason = None
    if phase != PERMISSION:
        facts.permission_tool = facts.permission_tool_use_id = None
    if phase != COMPACTING:
        facts.compaction_trigger = facts.compaction_started = None
    facts.phase, facts.phase_at, facts.confirmed_at = phase, at, at


def _open_turn(facts: Facts, at: float) -> None:
    if not facts.turn_open:
        facts.turn_open = True
        facts.turn_started = at
        facts.tools_running = ()


def _close_turn(facts: Facts) -> None:
    facts.turn_open = False
    facts.tool = facts.tool_use_id = None
    facts.tools_running = ()


def _confirm(facts: Facts, at: float) -> None:
    if facts.confirmed_at is None or at > facts.confirmed_at:
        facts.confirmed_at = at


def _running_tasks(tasks: tuple[BackgroundTask, ...]) -> tuple[BackgroundTask, ...]:
    return tuple(t for t in tasks if t.status is None or t.status in HOLDING_STATUSES)


def _after_stop(facts: Facts, ev: Evidence) -> None:
    """The phase a reply ends in: a closing question, a pause for background work, or a ready response."""
    if ev.background is not None:
        facts.reports_background = True
        facts.background = _running_tasks(ev.background)
    elif not facts.reports_background:
        facts.background = ()
    holding = [t for t in facts.background if not t.service]
    if ev.question:
        _set_phase(facts, INPUT, ev.at)
        facts.input_reason = "question"
    elif holding and facts.reports_background:
        turn_started = facts.turn_started
        _set_phase(facts, BACKGROUND, ev.at)
        facts.turn_started = turn_started
    else:
        _set_phase(facts, READY, ev.at)


def _fold_hook(facts: Facts, ev: Evidence) -> None:
    kind = ev.kind
    from_subagent = ev.agent_id is not None and kind not in ("SubagentStart", "SubagentStop")

    if kind == "SessionStart":
        if ev.start_source == "compact":
            _end_compaction(facts, ev.at)
        elif facts.phase in LIVE_PHASES or facts.ended:
            # A new process took the session over (startup, resume, clear): nothing of the old turn runs.
            _close_turn(facts)
            facts.background = ()
            _set_phase(facts, IDLE, ev.at)
        facts.ended = False
        return

    if kind == "UserPromptSubmit" and ev.agent_id is not None:
        _confirm(facts, ev.at)  # a sub-agent's own prompt (Codex): worker activity is not parent progress
        return

    if kind == "UserPromptSubmit":
        if ev.notification_only:
            _wake_for_notification(facts, ev)
            return
        _close_turn(facts)
        _open_turn(facts, ev.at)
        facts.turn_id = ev.turn_id
        facts.error = None
        _set_phase(facts, WORKING, ev.at)
        return

    if kind == "Interrupt":
        # Codex reports Esc as its own event: the turn ends without a Stop.
        if facts.turn_open or facts.phase in LIVE_PHASES:
            _close_turn(facts)
            _set_phase(facts, IDLE, ev.at)
        return

    if from_subagent:
        # A subagent's own tool events refresh the session's evidence but never move the main loop's phase;
        # its permission requests still need the person.
        if kind == "PermissionRequest":
            _enter_permission(facts, ev)
        else:
            _confirm(facts, ev.at)
        return

    if kind == "PreToolUse":
        if ev.tool_use_id and ev.tool:
            facts.tools_running = (*facts.tools_running, (ev.tool_use_id, ev.tool))[-32:]
        if facts.phase == PERMISSION:
            _confirm(facts, ev.at)  # a racing PreToolUse does not answer a permission prompt
            return
        if not facts.turn_open:
            if facts.phase == BACKGROUND:
                facts.turn_open = True  # Claude woke for its background work: the same task goes on
            else:
                _open_turn(facts, ev.at)
        facts.tool, facts.tool_use_id = ev.tool, ev.tool_use_id
        turn_started = facts.turn_started
        _set_phase(facts, WORKING, ev.at)
        facts.turn_started = turn_started if turn_started is not None else ev.at
        return

    if kind == "PermissionRequest":
        facts.permission_requested_at = ev.at
        _enter_permission(facts, ev)
        return

    if kind in ("PostToolUse", "PostToolUseFailure"):
        if ev.background_started is not None:
            facts.background = (*facts.background, ev.background_started)
        if not facts.turn_open:
            return  # a late event of a turn that already ended must not restart its working indicator
        facts.tools_running = tuple(t for t in facts.tools_running if t[0] != ev.tool_use_id)
        if ev.interrupt:
            # Esc during a tool: the turn ends without a Stop.
            _close_turn(facts)
            _set_phase(facts, IDLE, ev.at)
            return
        if facts.phase == PERMISSION and not _answers_permission(facts, ev):
            _confirm(facts, ev.at)
            return
        if facts.tool_use_id is None or ev.tool_use_id in (None, facts.tool_use_id):
            facts.tool = facts.tool_use_id = None
        if facts.phase in (PERMISSION, WORKING, COMPACTING, INPUT):
            _set_phase(facts, WORKING, ev.at)
        else:
            _confirm(facts, ev.at)
        return

    if kind == "Notification":
        _fold_notification(facts, ev)
        return

    if kind in ("Elicitation",):
        _open_turn(facts, ev.at)
        _set_phase(facts, INPUT, ev.at)
        facts.input_reason = "elicitation"
        return
    if kind == "ElicitationResult":
        if facts.phase == INPUT and facts.input_reason in ("elicitation", "link"):
            _set_phase(facts, WORKING if facts.turn_open else IDLE, ev.at)
        return

    if kind == "SubagentStart":
        _confirm(facts, ev.at)
        return
    if kind == "SubagentStop":
        if ev.background is not None:
            facts.reports_background = True
            facts.background = _running_tasks(ev.background)
        _confirm(facts, ev.at)
        return

    if kind == "Stop":
        _close_turn(facts)
        facts.error = None
        _after_stop(facts, ev)
        return
    if kind == "StopFailure":
        _close_turn(facts)
        facts.error = error_reason(ev.error, ev.error_detail).value
        _set_phase(facts, ERROR, ev.at)
        return

    if kind == "PreCompact":
        _start_compaction(facts, ev)
        return
    if kind == "PostCompact":
        _end_compaction(facts, ev.at)
        return

    if kind == "SessionEnd":
        _close_turn(facts)
        facts.ended = True
        facts.background = ()
        if facts.phase == INPUT and facts.input_reason == "question":
            _set_phase(facts, READY, facts.phase_at or ev.at)
        elif facts.phase in LIVE_PHASES:
            _set_phase(facts, IDLE, ev.at)
        return


def _wake_for_notification(facts: Facts, ev: Evidence) -> None:
    """A background task ended and woke Claude: the same task goes on, so its timer goes on too."""
    if facts.phase == BACKGROUND or facts.turn_open:
        turn_started = facts.turn_started
        facts.turn_open = True
        _set_phase(facts, WORKING, ev.at)
        facts.turn_started = turn_started if turn_started is not None else ev.at
    else:
        _close_turn(facts)
        _open_turn(facts, ev.at)
        _set_phase(facts, WORKING, ev.at)


def _enter_permission(facts: Facts, ev: Evidence) -> None:
    if facts.phase == PERMISSION:
        _confirm(facts, ev.at)
        return
    turn_started = facts.turn_started if facts.turn_open else ev.at
    facts.turn_open = True
    tool_use_id = None
    if ev.tool:
        matching = [t for t in facts.tools_running if t[1] == ev.tool]
        tool_use_id = matching[-1][0] if matching else None
    _set_phase(facts, PERMISSION, ev.at)
    facts.turn_started = turn_started
    facts.permission_tool = ev.tool or facts.tool
    facts.permission_tool_use_id = tool_use_id or (facts.tool_use_id if ev.tool in (None, facts.tool) else None)


def _answers_permission(facts: Facts, ev: Evidence) -> bool:
    """Only progress of the tool that asked clears a permission prompt."""
    if facts.permission_tool_use_id and ev.tool_use_id:
        return ev.tool_use_id == facts.permission_tool_use_id
    if facts.permission_tool and ev.tool:
        return ev.tool == facts.permission_tool
    return True


# Notifications that mean the client waits for its person: an MCP form, a link to open, or a choice in a
# dialog of the client's own (e.g. "Auto mode can't check actions in this session and needs your choice").
INPUT_REASONS = {
    "elicitation_dialog": "elicitation",
    "elicitation_url_dialog": "link",
    "agent_needs_input": "dialog",
}


def _fold_notification(facts: Facts, ev: Evidence) -> None:
    kind = ev.notification
    if kind == "permission_prompt":
        answered = (
            facts.phase != PERMISSION
            and facts.permission_requested_at is not None
            and facts.turn_started is not None
            and facts.permission_requested_at >= facts.turn_started
        )
        if not answered:  # the late echo of a PermissionRequest that was already answered is not a new wait
            _enter_permission(facts, ev)
    elif kind in ("elicitation_dialog", "elicitation_url_dialog", "agent_needs_input"):
        if facts.phase == PERMISSION:
            return  # structured permission events keep their priority
        if kind == "agent_needs_input" and not facts.turn_open:
            return  # a late notice of a dialog whose turn already ended
        reason = INPUT_REASONS[kind]
        if not (facts.phase == INPUT and facts.input_reason == reason):
            turn_started = facts.turn_started if facts.turn_open else ev.at
            facts.turn_open = True
            _set_phase(facts, INPUT, ev.at)
            facts.turn_started = turn_started
        facts.input_reason = reason
    elif kind in ("elicitation_complete", "elicitation_response"):
        if facts.phase == INPUT and facts.input_reason in ("elicitation", "link"):
            _set_phase(facts, WORKING if facts.turn_open else IDLE, ev.at)
    elif kind == "idle_prompt":
        # The client's input box has been idle a while. That ends a turn we still thought working (an Esc
        # interrupt sends no Stop), but it never renews a question, a background pause or a compaction.
        if facts.phase == WORKING and facts.turn_open:
            _close_turn(facts)
            _set_phase(facts, IDLE, ev.at)


def _start_compaction(facts: Facts, ev: Evidence) -> None:
    trigger = ev.trigger or "manual"
    turn_started = facts.turn_started
    running = facts.turn_open and trigger == "auto"
    _set_phase(facts, COMPACTING, ev.at)
    facts.compaction_trigger = trigger
    # Automatic compaction keeps the running response's start; manual compaction has its own timer.
    facts.compaction_started = turn_started if running and turn_started is not None else ev.at
    if running:
        facts.turn_started = turn_started
    else:
        facts.turn_open = False


def _end_compaction(facts: Facts, at: float) -> None:
    if facts.phase != COMPACTING:
        return
    if facts.compaction_trigger == "auto" and facts.turn_open:
        turn_started = facts.turn_started
        _set_phase(facts, WORKING, at)
        facts.turn_started = turn_started
    else:
        _close_turn(facts)
        _set_phase(facts, IDLE, at)


def _fold_catalog(facts: Facts, ev: Evidence) -> None:
    """The client's live catalog: coarse, but it sees what hooks cannot (an interrupt, a denied prompt)."""
    if ev.kind == "CatalogUnconfirmed":
        facts.unconfirmed_at = ev.at
        return
    status = ev.status  # idle | busy | waiting
    if status is None:
        return  # metadata only (a title, a folder): no statement about the runtime
    facts.catalog_status, facts.catalog_at = status, ev.at
    if facts.hooked:
        newer = facts.confirmed_at is None or ev.at > facts.confirmed_at + CATALOG_MARGIN_S
        waiting_dialog = facts.phase == INPUT and facts.input_reason not in (None, "question")
        if status == "idle" and newer and (facts.phase in (WORKING, PERMISSION) or waiting_dialog):
            # The turn ended without a Stop (Esc, a denied permission prompt, a dialog that stopped the
            # turn): the turn is over.
            _close_turn(facts)
            _set_phase(facts, IDLE, ev.at)
        elif status == "waiting" and newer and facts.phase == WORKING:
            # The client waits for its person, and no hook said so (a dialog of its own).
            _enter_wait_from_catalog(facts, ev)
        elif status in ("busy", "waiting") and facts.phase in (WORKING, PERMISSION, INPUT, BACKGROUND, COMPACTING):
            _confirm(facts, ev.at)
        return
    # No hooks: the catalog is the best evidence there is.
    if status == "busy":
        if facts.phase != WORKING:
            _open_turn(facts, ev.at)
            _set_phase(facts, WORKING, ev.at)
        else:
            _confirm(facts, ev.at)
        facts.active = True
    elif status == "waiting":
        _enter_wait_from_catalog(facts, ev)
        facts.active = True
    elif status == "idle":
        if facts.phase in (WORKING, PERMISSION) or (facts.phase == INPUT and facts.input_reason != "question"):
            _close_turn(facts)
            _set_phase(facts, READY if facts.phase == WORKING else IDLE, ev.at)


def _enter_wait_from_catalog(facts: Facts, ev: Evidence) -> None:
    """The catalog's `waiting` with its `waitingFor`: a permission prompt, or another wait for the person."""
    wants = (ev.waiting_for or "").lower()
    turn_started = facts.turn_started if facts.turn_open else ev.at
    if "permission" in wants or wants.startswith("approve"):
        if facts.phase != PERMISSION:
            _set_phase(facts, PERMISSION, ev.at)
    elif facts.phase != INPUT:
        _set_phase(facts, INPUT, ev.at)
        facts.input_reason = "dialog"
    facts.turn_open = True
    facts.turn_started = turn_started
    _confirm(facts, ev.at)


def _fold_transcript(facts: Facts, ev: Evidence) -> None:
    """Transcript records: exact times, but written late and without hooks' detail."""
    if facts.hooked:
        waiting_dialog = facts.phase == INPUT and facts.input_reason not in (None, "question")
        if (
            ev.kind == "TranscriptInterrupt"
            and (facts.phase in (WORKING, PERMISSION) or waiting_dialog)
            and facts.turn_open
        ):
            if facts.confirmed_at is None or ev.at >= facts.confirmed_at:
                _close_turn(facts)
                _set_phase(facts, IDLE, ev.at)
        return
    newer = facts.phase_at is None or ev.at >= facts.phase_at
    if ev.kind == "TranscriptPrompt":
        if newer and ev.notification_only:
            _wake_for_notification(facts, ev)  # a background task's end woke Claude: the same task goes on
        elif newer:
            _close_turn(facts)
            _open_turn(facts, ev.at)
            facts.error = None
            _set_phase(facts, WORKING, ev.at)
    elif ev.kind == "TranscriptResponse":
        if newer:
            _close_turn(facts)
            _after_stop(facts, ev)  # ready, or in background while the transcript's own tasks run
    elif ev.kind in ("TranscriptToolUse", "TranscriptToolResult"):
        if newer and facts.phase == WORKING and facts.turn_open:
            if ev.kind == "TranscriptToolUse":
                facts.tool, facts.tool_use_id = ev.tool, ev.tool_use_id
            elif facts.tool_use_id in (None, ev.tool_use_id):
                facts.tool = facts.tool_use_id = None
            _confirm(facts, ev.at)
    elif ev.kind == "TranscriptBackground":
        # The running background work the transcript proves (agents and shells started, not yet ended).
        facts.reports_background = True
        facts.background = _running_tasks(ev.background or ())
        holding = any(not task.service for task in facts.background)
        if newer and facts.phase == READY and holding:
            _set_phase(facts, BACKGROUND, ev.at)
        elif newer and facts.phase == BACKGROUND and not holding:
            _set_phase(facts, READY, ev.at)
    elif ev.kind == "TranscriptApiError":
        if facts.phase_at is None or ev.at >= facts.phase_at:
            _close_turn(facts)
            facts.error = error_reason(ev.error, ev.error_detail, ev.http_status).value
            _set_phase(facts, ERROR, ev.at)
    elif ev.kind == "TranscriptInterrupt":
        if facts.phase == WORKING and (facts.phase_at is None or ev.at >= facts.phase_at):
            _close_turn(facts)
            _set_phase(facts, IDLE, ev.at)


def _fold_rollout(facts: Facts, ev: Evidence) -> None:
    """Codex's rollout lifecycle: exact turn boundaries, written by the client itself.

    With hooks, the hooks' exact events lead; a rollout boundary still ends the hooks' own open turn (the same
    turn id, or none known) when it is newer than their last word, and rollout records keep a running turn
    fresh. Without hooks it is the best evidence there is. Another turn's boundary never moves this one.
    """
    kind = ev.kind
    same_turn = ev.turn_id is None or facts.turn_id is None or ev.turn_id == facts.turn_id
    newer = facts.phase_at is None or ev.at >= facts.phase_at
    if kind in ("RolloutTurnComplete", "RolloutTurnAborted"):
        # A failed turn sends no hook; the SessionEnd that follows it may be read first. Its error still
        # decides that same turn's end.
        failed_then_ended = (
            ev.error is not None
            and facts.hooked
            and not facts.turn_open
            and facts.phase == IDLE
            and ev.turn_id is not None
            and ev.turn_id == facts.turn_id
        )
        if not failed_then_ended and (not newer or not same_turn or (facts.hooked and not facts.turn_open)):
            return
        if not facts.turn_open and facts.phase not in LIVE_PHASES and facts.phase != IDLE:
            return  # already ended (ready, a question, an error): a re-read end changes nothing
        _close_turn(facts)
        if ev.error is not None:
            # A failed turn: Codex sends no hook for it; its rollout's end names the error.
            facts.error = error_reason(ev.error, None, ev.http_status).value
            _set_phase(facts, ERROR, ev.at)
            return
        facts.error = None
        _set_phase(facts, READY if kind == "RolloutTurnComplete" else IDLE, ev.at)
        return
    if kind in ("RolloutTurnStarted", "RolloutTurnSeen"):
        if facts.turn_open and facts.turn_id is not None and facts.turn_id == ev.turn_id:
            if kind == "RolloutTurnStarted" and facts.turn_started is None:
                facts.turn_started = ev.at  # the exact start, recovered: the timer returns
            _confirm(facts, ev.at)
            return
        if not newer:
            return  # a turn that hooks or the rollout already saw end
        _close_turn(facts)
        _open_turn(facts, ev.at)
        if kind == "RolloutTurnSeen":
            facts.turn_started = None  # its start lies beyond what was read yet: never guess it
        facts.turn_id = ev.turn_id
        facts.error = None
        _set_phase(facts, WORKING, ev.at)
        return
    if kind not in ("RolloutTool", "RolloutInputRequest", "RolloutActivity"):
        return  # metadata (a title, a folder, a client): no statement about the runtime
    if not (facts.turn_open and same_turn and newer):
        return
    if facts.hooked or kind == "RolloutActivity":
        if facts.phase in (WORKING, PERMISSION, INPUT, COMPACTING):
            _confirm(facts, ev.at)
        return
    if kind == "RolloutTool":
        if facts.phase in (WORKING, INPUT):
            turn_started = facts.turn_started
            _set_phase(facts, WORKING, ev.at)
            facts.turn_started = turn_started
            facts.tool, facts.tool_use_id = ev.tool, ev.tool_use_id
    elif kind == "RolloutInputRequest" and facts.phase == WORKING:
        _set_phase(facts, INPUT, ev.at)
        facts.input_reason = "elicitation"


def fold(facts: Facts, ev: Evidence) -> Facts:
    """Apply one piece of evidence to a session's facts; returns a new value (the input is not changed)."""
    facts = msgspec.structs.replace(facts)
    if facts.first_seen is None or ev.at < facts.first_seen:
        facts.first_seen = ev.at
    before = (facts.phase, facts.phase_at)
    for name in ("cwd", "transcript", "title", "tty", "client", "branch", "version", "entrypoint", "tmux"):
        value = getattr(ev, name)
        if value:
            setattr(facts, name, value)
    if ev.pid is not None:
        facts.pid, facts.pstart = ev.pid, ev.pstart
    if ev.kind in ACTIVITY_EVENTS:
        facts.active = True
    if facts.last_event_at is None or ev.at >= facts.last_event_at:
        facts.last_event_at = ev.at
        facts.last_event = ev.kind
    if ev.source == "hook":
        facts.hooked = True
        _fold_hook(facts, ev)
    elif ev.source == "catalog":
        _fold_catalog(facts, ev)
    elif ev.source == "transcript":
        _fold_transcript(facts, ev)
    elif ev.source == "rollout":
        _fold_rollout(facts, ev)
    if (facts.phase, facts.phase_at) != before or not facts.basis:
        # The basis is the evidence that decided the current phase, not every source ever seen.
        facts.basis = (ev.source,)
    return facts


# -- deciding ---------------------------------------------------------------------------------------------


def _counts(tasks: tuple[BackgroundTask, ...]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for task in tasks:
        counts[task.kind] = counts.get(task.kind, 0) + 1
    return counts


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
    listed = facts.active
    basis = facts.basis
    phase = facts.phase
    confirmed = facts.confirmed_at if facts.confirmed_at is not None else (facts.last_event_at or now)
    age = now - confirmed
    authority = EVENT_AUTHORITY_BY_PROVIDER.get(facts.provider, EVENT_AUTHORITY_S)
    unconfirmed = facts.unconfirmed_at is not None and facts.unconfirmed_at >= confirmed
    stale = (age > authority or unconfirmed) and writer is not True

    if phase in LIVE_PHASES and (alive is False or facts.ended):
        with_process = tuple(sorted({*basis, "process"})) if alive is False else basis
        if phase == INPUT and facts.input_reason == "question":
            return Decision(State.READY, listed, basis=with_process)
        return Decision(State.IDLE, listed, basis=with_process)

    background = _counts(facts.background)
    if phase == WORKING:
        if stale:
            return Decision(State.UNKNOWN, listed, basis=basis)
        if offline_since is not None and now - offline_since >= OFFLINE_AFTER_S:
            return Decision(State.OFFLINE, listed, since=facts.turn_started, background=background, basis=basis)
        return Decision(
            State.WORKING,
            listed,
            activity=facts.tool or "thinking",
            since=facts.turn_started,
            background=background,
            basis=basis,
        )
    if phase == BACKGROUND:
        if age > BACKGROUND_AUTHORITY_S:
            return Decision(State.UNKNOWN, listed, basis=basis)
        return Decision(State.BACKGROUND, listed, since=facts.turn_started, background=background, basis=basis)
    if phase == COMPACTING:
        if stale:
            return Decision(State.UNKNOWN, listed, basis=basis)
        return Decision(State.COMPACTING, listed, since=facts.compaction_started, background=background, basis=basis)
    if phase == PERMISSION:
        if stale:
            return Decision(State.UNKNOWN, listed, basis=basis)
        return Decision(
            State.PERMISSION, listed, since=facts.turn_started, basis=basis, waiting_for=facts.permission_tool
        )
    if phase == INPUT:
        if facts.input_reason == "question":
            # A closing question is an inference: its own time, never an idle poll's, decides its freshness.
            if facts.phase_at is not None and now - facts.phase_at > EVENT_AUTHORITY_S:
                return Decision(State.READY, listed, basis=basis)
            return Decision(State.INPUT, listed, basis=basis, waiting_for="question")
        if stale:
            return Decision(State.UNKNOWN, listed, basis=basis)
        return Decision(State.INPUT, listed, since=facts.turn_started, basis=basis, waiting_for=facts.input_reason)
    if phase == ERROR:
        return Decision(State.ERROR, listed, error=ErrorReason(facts.error or "other"), basis=basis)
    return Decision(State(phase), listed, basis=basis)
