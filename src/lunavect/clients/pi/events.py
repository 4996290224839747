"""Pi's extension events, as lunavect's extension spooled them (extension.ts), to the hook events the rules know.

The extension forwards Pi's own event names with names, ids and numbers only; this says what each one is in the
rules' words, so the rules stay the same for every client (observed with Pi 0.73.1, tests/clients/NOTES.md):

- `session_start` is the session's start (its folder, its file once made, its name when it has one);
- `agent_start` is a prompt taken (a new turn), `agent_end` its end: a reply (`stop`, `length`), an Esc
  (`aborted`), or a failure (`error`, with the HTTP status Pi's message began with, or that no answer came);
- `tool_execution_start` and `_end` are a tool's start and end (`PreToolUse`, `PostToolUse`);
- `session_before_compact` and `session_compact` a compaction's start and end (`/compact` or Pi's own);
- `session_shutdown` with `quit` the session's end (a `/new`, `/resume` or `/fork` leaves it for another, which
  starts with its own `session_start`: the old one is not running any more either).

Pi asks no permission and has no question tool: no record says either, and its descriptor says so.
"""

from __future__ import annotations

import msgspec

from lunavect.core.clients import PI
from lunavect.core.model import Evidence
from lunavect.evidence.spool_record import SpoolRecord
from lunavect.evidence.spool_record import evidence as shared_evidence

# An API error's HTTP status, in the rules' words (core.rules.facts.ERROR_REASONS).
_STATUS_ERRORS = {401: "authentication_failed", 403: "authentication_failed", 402: "billing_error", 429: "rate_limit"}
_START_SOURCES = {"startup": "startup", "resume": "resume", "reload": "resume", "fork": "resume", "new": "startup"}


def error_name(detail: str | None) -> str:
    """A failed turn's error in the rules' words, from what the extension kept of it (an HTTP status, or
    ECONNREFUSED when no answer came)."""
    if detail == "ECONNREFUSED":
        return "connection_error"
    status = int(detail) if detail is not None and detail.isdigit() and len(detail) == 3 else None
    if status is None:
        return "unknown"
    if status in _STATUS_ERRORS:
        return _STATUS_ERRORS[status]
    if status == 529:
        return "overloaded"
    return "server_error" if status >= 500 else "invalid_request"


def _end(record: SpoolRecord) -> tuple[str, dict]:
    if record.reason == "aborted":
        return "Interrupt", {}
    if record.reason == "error":
        detail = record.error_detail if record.error_detail == "ECONNREFUSED" else None
        return "StopFailure", {"error": error_name(record.error_detail), "error_detail": detail}
    return "Stop", {}


def _kind(record: SpoolRecord) -> tuple[str, dict] | None:
    """The rules' event for one extension record, and the fields it sets; None for a record that says nothing."""
    event = record.event
    if event == "session_start":
        return "SessionStart", {"start_source": _START_SOURCES.get(record.source or "", "startup")}
    if event == "agent_start":
        return "UserPromptSubmit", {}
    if event == "tool_execution_start":
        return "PreToolUse", {}
    if event == "tool_execution_end":
        return ("PostToolUseFailure" if record.reason == "error" else "PostToolUse"), {}
    if event == "agent_end":
        return _end(record)
    if event == "session_before_compact":
        return "PreCompact", {"trigger": "manual"}
    if event == "session_compact":
        return "PostCompact", {}
    if event == "session_shutdown":
        return "SessionEnd", {"reason": record.reason}
    return None


def evidence_from_record(record: SpoolRecord) -> Evidence | None:
    """The evidence of one record of lunavect's Pi extension, or None when it names no session or says nothing
    the rules read."""
    evidence = shared_evidence(record)
    mapped = _kind(record) if evidence is not None else None
    if evidence is None or mapped is None:
        return None
    kind, fields = mapped
    values: dict = {
        "provider": PI.id,
        "kind": kind,
        "agent_id": None,
        "start_source": None,
        "reason": None,
        "trigger": None,
        "error": None,
        "error_detail": None,
    }
    values.update(fields)
    return msgspec.structs.replace(evidence, **values)
