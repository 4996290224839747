"""The agent's own hooks: exact lifecycle events, the most exact evidence there is.

One handler per event, found in a table. A subagent's events (an `agent_id` on anything but its own start and
stop) refresh the session's evidence but never move the main loop's phase; only its permission requests still
need the person.
"""

from __future__ import annotations

from collections.abc import Callable

from lunavect.core.model import Evidence, State
from lunavect.core.rules.facts import (
    LIVE_PHASES,
    Facts,
    after_stop,
    answers_permission,
    close_turn,
    confirm,
    cut_short,
    end_turn,
    error_reason,
    note_retry,
    note_tool_running,
    open_turn,
    outcome_read,
    person_acted,
    running_tasks,
    set_phase,
    set_phase_keeping_timer,
    start_turn,
    tool_after_approval,
    wake_for_notification,
)
from lunavect.core.rules.presence import forget_terminal

Handler = Callable[[Facts, Evidence], None]

# Notifications that mean the client waits for its person: an MCP form, a link to open, or a choice in a
# dialog of the client's own (e.g. "Auto mode can't check actions in this session and needs your choice").
INPUT_REASONS = {
    "elicitation_dialog": "elicitation",
    "elicitation_url_dialog": "link",
    "agent_needs_input": "dialog",
}


def _session_start(facts: Facts, ev: Evidence) -> None:
    if ev.start_source != "compact":
        forget_terminal(facts)  # a client (re)attached: the terminal that showed it before may not be this one
    if ev.start_source == "compact":
        end_compaction(facts, ev.at)
    elif facts.phase in LIVE_PHASES or facts.ended:
        # A new process took the session over (startup, resume, clear): nothing of the old turn runs.
        close_turn(facts)
        facts.background = ()
        set_phase(facts, State.IDLE, ev.at)
    facts.ended = False


def _prompt(facts: Facts, ev: Evidence) -> None:
    if ev.agent_id is not None:
        confirm(facts, ev.at)  # a sub-agent's own prompt (Codex): worker activity is not parent progress
    elif ev.notification_only:
        wake_for_notification(facts, ev)
    else:
        start_turn(facts, ev.at)
        facts.turn_id = ev.turn_id


def _interrupt(facts: Facts, ev: Evidence) -> None:
    # Codex reports Esc as its own event: the turn ends without a Stop.
    if facts.turn_open or facts.phase in LIVE_PHASES:
        person_acted(facts, ev.at)
        end_turn(facts, State.IDLE, ev.at)


def _subagent_event(facts: Facts, ev: Evidence) -> None:
    # A sub-agent's prompts for its person are the session's: its permission requests, and its questions where
    # the client reports them (OpenCode's child sessions).
    if ev.kind == "PermissionRequest":
        enter_permission(facts, ev)
    elif ev.kind in ("Elicitation", "ElicitationResult"):
        EVENTS[ev.kind](facts, ev)
    else:
        confirm(facts, ev.at)


def _pre_tool(facts: Facts, ev: Evidence) -> None:
    note_tool_running(facts, ev)
    if facts.phase == State.PERMISSION and not tool_after_approval(facts.provider):
        confirm(facts, ev.at)  # a racing PreToolUse does not answer a permission prompt
        return
    if not facts.turn_open:
        if facts.phase == State.BACKGROUND:
            facts.turn_open = True  # Claude woke for its background work: the same task goes on
        else:
            open_turn(facts, ev.at)
    facts.tool, facts.tool_use_id = ev.tool, ev.tool_use_id
    turn_started = facts.turn_started
    set_phase(facts, State.WORKING, ev.at)
    facts.turn_started = turn_started if turn_started is not None else ev.at


def _permission_request(facts: Facts, ev: Evidence) -> None:
    facts.permission_requested_at = ev.at
    enter_permission(facts, ev)


def _permission_answered(facts: Facts, ev: Evidence) -> None:
    """The person answered a permission prompt and the client says so (OpenCode does; Claude Code and Codex do
    not: the asking tool's progress answers theirs). Allowed, the tool runs; denied, the turn goes on until the
    client says how it ends. A sub-agent's prompt answered: the session's own tool (the one that runs the
    sub-agent) goes on."""
    if facts.phase != State.PERMISSION:
        confirm(facts, ev.at)
        return
    asked = facts.permission_tool_use_id
    if ev.agent_id is None and asked and ev.tool_use_id and ev.tool_use_id != asked:
        confirm(facts, ev.at)  # another call's answer: the prompt that waits is not this one
        return
    set_phase_keeping_timer(facts, State.WORKING, ev.at)
    if ev.agent_id is None and ev.reason != "deny" and ev.tool:
        facts.tool, facts.tool_use_id = ev.tool, ev.tool_use_id


def _retry(facts: Facts, ev: Evidence) -> None:
    """The client's hook reports a retry of a failed request (its reason), or, with no error, that the retried
    request went through: working again without the reason."""
    if ev.error is None:
        if facts.retry_error is not None and ev.at >= (facts.retry_at or 0.0):
            facts.retry_error = None
        confirm(facts, ev.at)
    else:
        note_retry(facts, ev)


def _post_tool(facts: Facts, ev: Evidence) -> None:
    if ev.background_started is not None:
        facts.background = (*facts.background, ev.background_started)
    if not facts.turn_open:
        return  # a late event of a turn that already ended must not restart its working indicator
    facts.tools_running = tuple(t for t in facts.tools_running if t[0] != ev.tool_use_id)
    if ev.interrupt:
        end_turn(facts, State.IDLE, ev.at)  # Esc during a tool: the turn ends without a Stop
        return
    if facts.phase == State.PERMISSION and not answers_permission(facts, ev):
        confirm(facts, ev.at)
        return
    if facts.tool_use_id is None or ev.tool_use_id in (None, facts.tool_use_id):
        facts.tool = facts.tool_use_id = None
    if facts.phase in (State.PERMISSION, State.INPUT):
        person_acted(facts, ev.at)  # the asking tool went on (or failed, denied): the person answered
    if facts.phase in (State.PERMISSION, State.WORKING, State.COMPACTING, State.INPUT):
        set_phase(facts, State.WORKING, ev.at)
    else:
        confirm(facts, ev.at)


def _elicitation(facts: Facts, ev: Evidence) -> None:
    open_turn(facts, ev.at)
    set_phase(facts, State.INPUT, ev.at)
    facts.input_reason = "elicitation"


def _elicitation_ended(facts: Facts, ev: Evidence) -> None:
    if facts.phase == State.INPUT and facts.input_reason in ("elicitation", "link"):
        person_acted(facts, ev.at)
        set_phase(facts, State.WORKING if facts.turn_open else State.IDLE, ev.at)


def _subagent_start(facts: Facts, ev: Evidence) -> None:
    confirm(facts, ev.at)


def _subagent_stop(facts: Facts, ev: Evidence) -> None:
    if ev.background is not None:
        facts.reports_background = True
        facts.background = running_tasks(ev.background)
    confirm(facts, ev.at)


def _stop(facts: Facts, ev: Evidence) -> None:
    if not facts.turn_open and outcome_read(facts):
        # The turn's own end came first from the transcript (an API error, Esc): this Stop is that end again.
        confirm(facts, ev.at)
        return
    close_turn(facts)
    facts.error = None
    after_stop(facts, ev)


def _stop_failure(facts: Facts, ev: Evidence) -> None:
    close_turn(facts)
    facts.error = error_reason(ev.error, ev.error_detail).value
    set_phase(facts, State.ERROR, ev.at)


def _pre_compact(facts: Facts, ev: Evidence) -> None:
    trigger = ev.trigger or "manual"
    turn_started = facts.turn_started
    running = facts.turn_open and trigger == "auto"
    set_phase(facts, State.COMPACTING, ev.at)
    facts.compaction_trigger = trigger
    # Automatic compaction keeps the running response's start; manual compaction has its own timer.
    facts.compaction_started = turn_started if running and turn_started is not None else ev.at
    if running:
        facts.turn_started = turn_started
    else:
        facts.turn_open = False


def _post_compact(facts: Facts, ev: Evidence) -> None:
    end_compaction(facts, ev.at)


def end_compaction(facts: Facts, at: float) -> None:
    if facts.phase != State.COMPACTING:
        return
    if facts.compaction_trigger == "auto" and facts.turn_open:
        set_phase_keeping_timer(facts, State.WORKING, at)
    else:
        end_turn(facts, State.IDLE, at)


def _session_end(facts: Facts, ev: Evidence) -> None:
    facts.ended = True
    facts.background = ()
    if facts.phase == State.INPUT and facts.input_reason == "question":
        close_turn(facts)
        set_phase(facts, State.READY, facts.phase_at or ev.at)
    elif facts.phase in LIVE_PHASES:
        cut_short(facts, State.IDLE, ev.at)
    else:
        close_turn(facts)


def enter_permission(facts: Facts, ev: Evidence) -> None:
    if facts.phase == State.PERMISSION:
        confirm(facts, ev.at)
        return
    turn_started = facts.turn_started if facts.turn_open else ev.at
    facts.turn_open = True
    tool_use_id = None
    if ev.tool:
        matching = [t for t in facts.tools_running if t[1] == ev.tool]
        tool_use_id = matching[-1][0] if matching else None
    set_phase(facts, State.PERMISSION, ev.at)
    facts.turn_started = turn_started
    facts.permission_tool = ev.tool or facts.tool
    facts.permission_tool_use_id = tool_use_id or (facts.tool_use_id if ev.tool in (None, facts.tool) else None)


# -- notifications: what the client tells its person, by notification type --------------------------------


def _permission_prompt(facts: Facts, ev: Evidence) -> None:
    answered = (
        facts.phase != State.PERMISSION
        and facts.permission_requested_at is not None
        and facts.turn_started is not None
        and facts.permission_requested_at >= facts.turn_started
    )
    if not answered:  # the late echo of a PermissionRequest that was already answered is not a new wait
        enter_permission(facts, ev)


def _input_dialog(facts: Facts, ev: Evidence) -> None:
    if facts.phase == State.PERMISSION:
        # Structured permission events keep their priority. Kept aside: if the prompt was in fact answered
        # before this (its tool's result, read from the transcript later), this dialog is what waits now.
        facts.held_input, facts.held_input_at = INPUT_REASONS[ev.notification or ""], ev.at
        return
    if ev.notification == "agent_needs_input" and not facts.turn_open:
        return  # a late notice of a dialog whose turn already ended
    reason = INPUT_REASONS[ev.notification or ""]
    if not (facts.phase == State.INPUT and facts.input_reason == reason):
        turn_started = facts.turn_started if facts.turn_open else ev.at
        facts.turn_open = True
        set_phase(facts, State.INPUT, ev.at)
        facts.turn_started = turn_started
    elif facts.phase_at is None or ev.at > facts.phase_at:
        # Another dialog of the same kind (or its repeat): only a tool result after it answers it.
        facts.phase_at = ev.at
        confirm(facts, ev.at)
    facts.input_reason = reason


def _idle_prompt(facts: Facts, ev: Evidence) -> None:
    # The client's input box has been idle a while. That ends a turn we still thought working (an Esc
    # interrupt sends no Stop), but it never renews a question, a background pause or a compaction.
    if facts.phase == State.WORKING and facts.turn_open:
        end_turn(facts, State.IDLE, ev.at)


NOTIFICATIONS: dict[str, Handler] = {
    "permission_prompt": _permission_prompt,
    "elicitation_dialog": _input_dialog,
    "elicitation_url_dialog": _input_dialog,
    "agent_needs_input": _input_dialog,
    "elicitation_complete": _elicitation_ended,
    "elicitation_response": _elicitation_ended,
    "idle_prompt": _idle_prompt,
}


def _notification(facts: Facts, ev: Evidence) -> None:
    handler = NOTIFICATIONS.get(ev.notification or "")
    if handler is not None:
        handler(facts, ev)


EVENTS: dict[str, Handler] = {
    "SessionStart": _session_start,
    "UserPromptSubmit": _prompt,
    "Interrupt": _interrupt,
    "PreToolUse": _pre_tool,
    "PermissionRequest": _permission_request,
    "PermissionAnswered": _permission_answered,
    "Retry": _retry,
    "PostToolUse": _post_tool,
    "PostToolUseFailure": _post_tool,
    "Notification": _notification,
    "Elicitation": _elicitation,
    "ElicitationResult": _elicitation_ended,
    "SubagentStart": _subagent_start,
    "SubagentStop": _subagent_stop,
    "Stop": _stop,
    "StopFailure": _stop_failure,
    "PreCompact": _pre_compact,
    "PostCompact": _post_compact,
    "SessionEnd": _session_end,
}
# Events whose handler itself tells a subagent's event from the main loop's; any other event that carries an
# `agent_id` is a subagent's own work.
_AGENT_AWARE = frozenset(
    {"SessionStart", "UserPromptSubmit", "Interrupt", "SubagentStart", "SubagentStop", "PermissionAnswered"}
)


def fold_hook(facts: Facts, ev: Evidence) -> None:
    if ev.agent_id is not None and ev.kind not in _AGENT_AWARE:
        _subagent_event(facts, ev)
        return
    handler = EVENTS.get(ev.kind)
    if handler is not None:
        handler(facts, ev)
