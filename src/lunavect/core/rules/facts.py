"""What the rules know about one session (`Facts`), what they decide (`Decision`), and the transitions every
kind of evidence shares: entering a phase, opening and closing a turn, confirming the current phase.

The transitions live here, beside the facts they change, so that each fold module states only what its own
evidence means and the bookkeeping that must stay consistent (a question superseded, a permission's tool
forgotten, a compaction's timer dropped) is written once.
"""

from __future__ import annotations

import msgspec

from lunavect.core.clients import by_id
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

# Phases in which the agent process must be alive for the phase to be true.
LIVE_PHASES = frozenset({State.WORKING, State.BACKGROUND, State.COMPACTING, State.PERMISSION, State.INPUT})


def event_authority_s(provider: str) -> float:
    """How long a client's hook events hold without newer evidence: its own limit where its descriptor names one
    (Codex's two minutes, the guide's "Codex log freshness"), else the ten-minute hook limit."""
    client = by_id(provider)
    limit = client.rules.event_authority_s if client is not None else None
    return EVENT_AUTHORITY_S if limit is None else limit


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
    # The time of the newest hook event: a coarser live source (a terminal title) speaks only after it.
    hooked_at: float | None = None
    # The phase the evidence last put the session in: one of the states, before freshness and liveness.
    phase: State = State.IDLE
    # When the current phase was entered, and when evidence last confirmed it (idle polls never do).
    phase_at: float | None = None
    confirmed_at: float | None = None
    turn_open: bool = False
    turn_started: float | None = None
    # The open turn began when a background task's end woke the session after its reply had ended: the guide
    # keeps the reply to such a task event silent (no "Response ready" notification for it).
    task_reply: bool = False
    # When the person last acted on the session: a prompt, a permission or dialog answered, an Esc. Its
    # notifications' quiet period ends there (notify/decide.py).
    acted_at: float | None = None
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
    # A dialog of the client's own that opened while a permission prompt was shown (and ignored for it): the
    # transcript may prove later that the prompt had been answered first (its HTTP hook lost), and then the
    # dialog is what waits. Any change of phase forgets it.
    held_input: str | None = None
    held_input_at: float | None = None
    compaction_trigger: str | None = None
    compaction_started: float | None = None
    error: str | None = None
    # The client is retrying a failed request of the running turn: the reason shows until a response flows.
    retry_error: str | None = None
    retry_at: float | None = None
    # The newest evidence of a prompt, tool, response or request: a retry older than it is over.
    progress_at: float | None = None
    # Codex archived the thread (its rollout moved to archived_sessions/): it leaves the current list.
    archived: bool = False
    ended: bool = False
    # A turn that ended without its own outcome (the session ended, or the catalog said idle, while it ran):
    # its start. Its outcome may still be read afterwards (`cut_short`, `of_turn_cut_short`).
    cut_short_since: float | None = None
    # When the transcript said how the latest turn ended (an API error, a cancel), for a client whose reply-end
    # hook fires after those too (`Client.outcome_in_transcript`): that Stop must not make it a ready reply.
    outcome_at: float | None = None
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
    # The process that shows the session to its person when another runs it (a Codex TUI whose thread the
    # daemon runs: `rules.presence`), with its start and terminal.
    terminal_pid: int | None = None
    terminal_pstart: float | None = None
    terminal_tty: str | None = None
    cwd: str | None = None
    transcript: str | None = None
    title: str | None = None
    branch: str | None = None
    version: str | None = None
    entrypoint: str | None = None
    tmux: str | None = None
    # Its background job while its client's latest live catalog entry names one (`Evidence.job`).
    job: str | None = None
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


# -- transitions shared by every kind of evidence ----------------------------------------------------------


def set_phase(facts: Facts, phase: State, at: float) -> None:
    if facts.phase == State.INPUT and facts.input_reason == "question" and phase != State.INPUT:
        facts.superseded_question_at = facts.phase_at
    if phase != State.INPUT:
        facts.input_reason = None
    if phase != State.PERMISSION:
        facts.permission_tool = facts.permission_tool_use_id = None
    if phase != State.COMPACTING:
        facts.compaction_trigger = facts.compaction_started = None
    facts.retry_error = None
    facts.held_input = facts.held_input_at = None
    facts.phase, facts.phase_at, facts.confirmed_at = phase, at, at


def set_phase_keeping_timer(facts: Facts, phase: State, at: float) -> None:
    """Enter a phase that continues the running response: its timer keeps the response's start."""
    turn_started = facts.turn_started
    set_phase(facts, phase, at)
    facts.turn_started = turn_started


def open_turn(facts: Facts, at: float) -> None:
    if not facts.turn_open:
        facts.cut_short_since = None
        facts.turn_open = True
        facts.task_reply = False
        facts.turn_started = at
        facts.tools_running = ()


def close_turn(facts: Facts) -> None:
    facts.turn_open = False
    facts.tool = facts.tool_use_id = None
    facts.tools_running = ()


def end_turn(facts: Facts, phase: State, at: float) -> None:
    """The turn is over and the session rests in `phase` (idle after an interrupt, ready, an error)."""
    close_turn(facts)
    set_phase(facts, phase, at)


def cut_short(facts: Facts, phase: State, at: float) -> None:
    """The running turn ends in `phase` at `at` without its own outcome (the session ended, the catalog says
    idle): its start is remembered, so that its outcome read later still lands on it. Within one tick the
    spool's hooks fold before the files are read, so a headless client that failed and exited (its
    StopFailure hook lost: `claude -p` does not wait for it) had its SessionEnd folded first, and the
    transcript's own record of the failure, older, used to move nothing: the failure read as plain idle."""
    facts.cut_short_since = facts.turn_started if facts.turn_open else None
    end_turn(facts, phase, at)


def of_turn_cut_short(facts: Facts, ev: Evidence) -> bool:
    """The evidence belongs to the turn that ended without its outcome, and nothing happened since."""
    since = facts.cut_short_since
    return since is not None and facts.phase in (State.IDLE, State.READY) and ev.at >= since


def person_acted(facts: Facts, at: float) -> None:
    """The person acted on the session at `at` (the latest act counts; a late record of an earlier one moves
    nothing)."""
    if facts.acted_at is None or at > facts.acted_at:
        facts.acted_at = at


def start_turn(facts: Facts, at: float) -> None:
    """A new response begins, always at the person's prompt (a background task's end that wakes the session
    is `wake_for_notification`): whatever the last turn left is over, and its error with it."""
    person_acted(facts, at)
    close_turn(facts)
    open_turn(facts, at)
    facts.error = None
    facts.outcome_at = None
    set_phase(facts, State.WORKING, at)


def outcome_in_transcript(provider: str) -> bool:
    """The client's reply-end hook fires after a failed or cancelled turn too, and only its transcript tells
    which (its descriptor says so: Gemini CLI's AfterAgent)."""
    client = by_id(provider)
    return client is not None and client.rules.outcome_in_transcript


def tool_after_approval(provider: str) -> bool:
    """The client's PreToolUse fires only once its approval let the tool run (its descriptor says so: Qwen
    Code's), so it answers a permission prompt."""
    client = by_id(provider)
    return client is not None and client.rules.tool_after_approval


def outcome_read(facts: Facts) -> bool:
    """The transcript already said how the latest turn ended (an error, a cancel): its Stop adds nothing."""
    started = facts.turn_started
    return facts.outcome_at is not None and started is not None and facts.outcome_at >= started


def confirm(facts: Facts, at: float) -> None:
    if facts.confirmed_at is None or at > facts.confirmed_at:
        facts.confirmed_at = at


def is_newer(facts: Facts, ev: Evidence) -> bool:
    """The evidence is at least as new as the current phase: a late record of an older moment moves nothing."""
    return facts.phase_at is None or ev.at >= facts.phase_at


def running_tasks(tasks: tuple[BackgroundTask, ...]) -> tuple[BackgroundTask, ...]:
    return tuple(t for t in tasks if t.status is None or t.status in HOLDING_STATUSES)


def waits_in_dialog(facts: Facts) -> bool:
    """The client waits for its person in a dialog (a form, a link, its own choice), not a closing question."""
    return facts.phase == State.INPUT and facts.input_reason not in (None, "question")


def after_stop(facts: Facts, ev: Evidence) -> None:
    """The phase a reply ends in: a closing question, a pause for background work, or a ready response."""
    if ev.background is not None:
        facts.reports_background = True
        facts.background = running_tasks(ev.background)
    elif not facts.reports_background:
        facts.background = ()
    holding = [t for t in facts.background if not t.service]
    if ev.question:
        set_phase(facts, State.INPUT, ev.at)
        facts.input_reason = "question"
    elif holding and facts.reports_background:
        set_phase_keeping_timer(facts, State.BACKGROUND, ev.at)
    else:
        set_phase(facts, State.READY, ev.at)


def wake_for_notification(facts: Facts, ev: Evidence) -> None:
    """A background task ended and woke Claude: the same task goes on, so its timer goes on too."""
    if facts.phase == State.BACKGROUND or facts.turn_open:
        turn_started = facts.turn_started
        facts.turn_open = True
        set_phase(facts, State.WORKING, ev.at)
        facts.turn_started = turn_started if turn_started is not None else ev.at
    else:
        close_turn(facts)
        open_turn(facts, ev.at)
        facts.task_reply = True
        set_phase(facts, State.WORKING, ev.at)


def note_retry(facts: Facts, ev: Evidence) -> None:
    """A failed request the client retries: still working, with the reason, unless later news came first."""
    if facts.phase == State.WORKING and facts.turn_open and (facts.progress_at is None or ev.at >= facts.progress_at):
        facts.retry_error = error_reason(ev.error, ev.error_detail, ev.http_status).value
        facts.retry_at = ev.at
        confirm(facts, ev.at)


def note_tool_running(facts: Facts, ev: Evidence) -> None:
    """A tool call began (its PreToolUse, or its use in the transcript): kept once, to match a permission."""
    if ev.tool_use_id and ev.tool and all(t[0] != ev.tool_use_id for t in facts.tools_running):
        facts.tools_running = (*facts.tools_running, (ev.tool_use_id, ev.tool))[-32:]


def wait_answered(facts: Facts, at: float) -> None:
    """The person answered the prompt or dialog the session waited on, and the client works again (its live
    catalog, its daemon or its title says so before any hook: a granted tool sends its next hook only when it
    ends). The response goes on, its timer too; a granted permission's tool is what runs now."""
    tool, tool_use_id = facts.permission_tool, facts.permission_tool_use_id
    person_acted(facts, at)
    set_phase_keeping_timer(facts, State.WORKING, at)
    facts.turn_open = True
    if tool is not None:
        facts.tool, facts.tool_use_id = tool, tool_use_id


def answers_permission(facts: Facts, ev: Evidence) -> bool:
    """Only progress of the tool that asked clears a permission prompt."""
    if facts.permission_tool_use_id and ev.tool_use_id:
        return ev.tool_use_id == facts.permission_tool_use_id
    if facts.permission_tool and ev.tool:
        return ev.tool == facts.permission_tool
    return True
