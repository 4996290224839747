"""Transcript records: exact times, but written late and without hooks' detail.

With hooks, a transcript proves what the hooks cannot see (an interrupt, a retry, a headless run's failure),
and its tool records stand in for the tool hooks, which may be HTTP hooks lost while no collector listened
(claude/http_hooks.py). Without hooks, each record kind has its handler in a table, and a record older than
the current phase changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from lunavect.core.model import Evidence, State
from lunavect.core.rules.facts import (
    Facts,
    after_stop,
    close_turn,
    confirm,
    end_turn,
    error_reason,
    is_newer,
    note_tool_running,
    of_turn_cut_short,
    running_tasks,
    set_phase,
    start_turn,
    waits_in_dialog,
    wake_for_notification,
)

Handler = Callable[[Facts, Evidence], None]


def _retry(facts: Facts, ev: Evidence) -> None:
    """A failed request the client retries: still working, with the reason, unless later news came first."""
    if facts.phase == State.WORKING and facts.turn_open and (facts.progress_at is None or ev.at >= facts.progress_at):
        facts.retry_error = error_reason(ev.error, ev.error_detail, ev.http_status).value
        facts.retry_at = ev.at
        confirm(facts, ev.at)


def _tool_name(facts: Facts, tool_use_id: str | None) -> str | None:
    return next((name for call, name in facts.tools_running if call == tool_use_id), None)


def _answers_permission(facts: Facts, asked: str | None, call: str | None, name: str | None) -> bool:
    """A tool result answers the permission prompt only when it is surely the asking tool's: its call, or
    (the call unknown) a tool of the asking tool's name."""
    if asked:
        return call == asked
    return name is not None and facts.permission_tool in (None, name)


def _permission_answered(facts: Facts, at: float) -> None:
    """The prompt's tool went on at `at`: working, or the client's own dialog if one opened since."""
    held, held_at = facts.held_input, facts.held_input_at
    if held is not None and held_at is not None and held_at >= at:
        set_phase(facts, State.INPUT, held_at)
        facts.input_reason = held
    else:
        set_phase(facts, State.WORKING, at)


def _hooked_tool(facts: Facts, ev: Evidence) -> None:
    """A tool's use or result in the transcript of a hooked session: what its PreToolUse or PostToolUse says,
    for when that hook was lost (an HTTP hook while no collector listened). A record older than the newest
    evidence folded moves nothing (the hook said it, or something later did: within a tick the spool's hooks
    fold first); a newer one moves the session as the hook would have: the running tool, the turn confirmed
    fresh, a permission prompt or a dialog answered once its tool's result is written."""
    use = ev.kind == "TranscriptToolUse"
    call = ev.tool_use_id
    name = ev.tool if use else _tool_name(facts, call)
    asked = facts.permission_tool_use_id
    if use:
        note_tool_running(facts, ev)
    else:
        facts.tools_running = tuple(t for t in facts.tools_running if t[0] != call)
        if call is not None and facts.tool_use_id == call:
            facts.tool = facts.tool_use_id = None  # a finished tool no longer runs, however late this is read
        if call is not None and asked == call:
            # This call is over; if the prompt still stands (a later request, folded first), it is another's.
            facts.permission_tool_use_id = None
    if facts.phase == State.PERMISSION and facts.permission_tool_use_id is None and facts.permission_tool:
        matching = [c for c, tool in facts.tools_running if tool == facts.permission_tool]
        facts.permission_tool_use_id = matching[-1] if matching else None
    if not facts.turn_open or not is_newer(facts, ev):
        return
    if facts.phase == State.PERMISSION:
        # A result older than the latest permission request ended its own call, not that request's wait.
        latest = facts.permission_requested_at
        if not use and (latest is None or ev.at >= latest) and _answers_permission(facts, asked, call, name):
            _permission_answered(facts, ev.at)
        else:
            confirm(facts, ev.at)
        return
    if facts.phase != State.WORKING and not waits_in_dialog(facts):
        return
    if facts.phase != State.WORKING:
        set_phase(facts, State.WORKING, ev.at)  # the dialog was answered: its tool went on
    if use:
        facts.tool, facts.tool_use_id = ev.tool, call
    elif facts.tool_use_id in (None, call):
        facts.tool = facts.tool_use_id = None
    confirm(facts, ev.at)


def _hooked(facts: Facts, ev: Evidence) -> None:
    if ev.kind in ("TranscriptToolUse", "TranscriptToolResult"):
        _hooked_tool(facts, ev)
        return
    if ev.kind == "TranscriptRetry":
        _retry(facts, ev)  # no hook reports a retry
        return
    if ev.kind == "TranscriptApiError":
        # The client's own record that the running turn failed. Its StopFailure hook says the same, but a
        # headless client can exit before that hook runs (seen with `claude -p` under load): then only the
        # transcript tells it, and the catalog's `idle` that follows must not turn the failure into plain idle.
        # Its record is read after SessionEnd or the catalog's idle when those fold first (`cut_short`).
        if (
            facts.phase == State.WORKING
            and facts.turn_open
            and (facts.confirmed_at is None or ev.at >= facts.confirmed_at)
        ) or of_turn_cut_short(facts, ev):
            _api_error(facts, ev)
        return
    if ev.kind != "TranscriptInterrupt" or not facts.turn_open:
        return
    if facts.phase in (State.WORKING, State.PERMISSION) or waits_in_dialog(facts):
        if facts.confirmed_at is None or ev.at >= facts.confirmed_at:
            end_turn(facts, State.IDLE, ev.at)


def _prompt(facts: Facts, ev: Evidence) -> None:
    if ev.notification_only:
        wake_for_notification(facts, ev)  # a background task's end woke Claude: the same task goes on
    else:
        start_turn(facts, ev.at)


def _response(facts: Facts, ev: Evidence) -> None:
    close_turn(facts)
    after_stop(facts, ev)  # ready, or in background while the transcript's own tasks run


def _tool(facts: Facts, ev: Evidence) -> None:
    if facts.phase == State.WORKING and facts.turn_open:
        if ev.kind == "TranscriptToolUse":
            facts.tool, facts.tool_use_id = ev.tool, ev.tool_use_id
        elif facts.tool_use_id in (None, ev.tool_use_id):
            facts.tool = facts.tool_use_id = None
        confirm(facts, ev.at)


def _background(facts: Facts, ev: Evidence) -> None:
    # The running background work the transcript proves (agents and shells started, not yet ended). It is
    # recorded whatever its time; only a newer record moves the phase.
    newer = is_newer(facts, ev)
    facts.reports_background = True
    facts.background = running_tasks(ev.background or ())
    holding = any(not task.service for task in facts.background)
    if newer and facts.phase == State.READY and holding:
        set_phase(facts, State.BACKGROUND, ev.at)
    elif newer and facts.phase == State.BACKGROUND and not holding:
        set_phase(facts, State.READY, ev.at)


def _api_error(facts: Facts, ev: Evidence) -> None:
    close_turn(facts)
    facts.cut_short_since = None
    facts.error = error_reason(ev.error, ev.error_detail, ev.http_status).value
    set_phase(facts, State.ERROR, ev.at)


def _interrupt(facts: Facts, ev: Evidence) -> None:
    if facts.phase == State.WORKING:
        end_turn(facts, State.IDLE, ev.at)


# Handlers that apply only to a record at least as new as the current phase.
RECORDS: dict[str, Handler] = {
    "TranscriptPrompt": _prompt,
    "TranscriptResponse": _response,
    "TranscriptToolUse": _tool,
    "TranscriptToolResult": _tool,
    "TranscriptApiError": _api_error,
    "TranscriptRetry": _retry,
    "TranscriptInterrupt": _interrupt,
}


def fold_transcript(facts: Facts, ev: Evidence) -> None:
    if facts.hooked:
        _hooked(facts, ev)
    elif ev.kind == "TranscriptBackground":
        _background(facts, ev)
    elif (handler := RECORDS.get(ev.kind)) is not None and (
        is_newer(facts, ev) or (ev.kind == "TranscriptApiError" and of_turn_cut_short(facts, ev))
    ):
        handler(facts, ev)
