"""OpenCode's bus events, as lunavect's plugin spooled them (plugin.js), to the hook events the rules know.

The plugin forwards only changes, under OpenCode's own event names (`session.status` with the status it turned
to and the one it left, a tool part when its call starts and ends, ...); this says what each one is in the
rules' words, so the rules stay the same for every client:

- a session's status turning busy from idle is its prompt (a new turn); idle again ends whatever turn is
  still open (an Esc, a denied permission, a dismissed question: OpenCode says nothing else of those), and a
  retry is the client retrying its request (its reason, when OpenCode names one), busy after it the request
  going through;
- an assistant message completed with a finish other than `tool-calls` is the reply's end (`Stop`); an error
  is the turn's failure (`StopFailure`), an aborted message its interruption;
- a tool call's start and end are `PreToolUse` and `PostToolUse` (the `question` tool waits for its person:
  input needed, as `question.asked` says); a permission asked and answered, a question asked and answered or
  dismissed, a compaction's start (its part) and end (`session.compacted`) each have their event;
- a child session (a `task` tool's sub-agent) reports under its root session's id with its own as `agent_id`,
  as Claude Code's and Codex's sub-agents do: its work keeps the parent's turn fresh, its permission prompts
  and questions still need the person, and its own start and end are a sub-agent's.
"""

from __future__ import annotations

import re

import msgspec

from lunavect.core.clients import OPENCODE
from lunavect.core.model import Evidence
from lunavect.evidence.spool_record import SpoolRecord
from lunavect.evidence.spool_record import evidence as shared_evidence

# OpenCode's titles until its small model wrote one: no title at all, for lunavect (its own, untitled).
_DEFAULT_TITLE = re.compile(r"^(New session|Child session) - \d{4}-\d{2}-\d{2}T")
# Tools that wait for the person's answer.
INPUT_TOOLS = frozenset({"question"})
# How a permission was answered: once or always lets the tool run, reject refuses it.
_REPLIES = {"once": "allow", "always": "allow", "reject": "deny"}
# OpenCode's errors (its `session.error` names, with the provider's HTTP status for an API error), in the
# rules' words (core.rules.facts.ERROR_REASONS).
_ERROR_NAMES = {"ProviderAuthError": "authentication_failed", "ContextOverflowError": "invalid_request"}
_STATUS_ERRORS = {401: "authentication_failed", 403: "authentication_failed", 402: "billing_error", 429: "rate_limit"}
# The plugin's own verdicts on a retry's reason.
_RETRY_REASONS = frozenset({"rate_limit", "overloaded"})


def clean_title(title: str | None) -> str | None:
    """A session's title, or None for OpenCode's placeholder."""
    return None if title is None or _DEFAULT_TITLE.match(title) else title


def error_name(name: str | None, status: int | None) -> str:
    """A failed turn's error in the rules' words."""
    if name == "APIError" and status is not None:
        if status in _STATUS_ERRORS:
            return _STATUS_ERRORS[status]
        if status == 529:
            return "overloaded"
        if status >= 500:
            return "server_error"
        return "invalid_request"
    return _ERROR_NAMES.get(name or "", "unknown")


def _status(detail: str | None) -> int | None:
    return int(detail) if detail is not None and detail.isdigit() and len(detail) == 3 else None


def _kind(record: SpoolRecord) -> tuple[str, dict] | None:
    """The rules' event for one plugin record, and the fields it sets; None for a record that says nothing."""
    event, reason = record.event, record.reason
    if event == "session.created":
        return "SessionStart", {"start_source": "startup", "title": clean_title(record.title)}
    if event == "session.updated":
        return "SessionTitle", {"title": clean_title(record.title)}
    if event == "session.status":
        if reason == "busy":
            return ("Retry", {}) if record.source == "retry" else ("UserPromptSubmit", {})
        if reason == "retry":
            return "Retry", {"error": record.error if record.error in _RETRY_REASONS else "unknown"}
        return ("Interrupt", {}) if reason == "idle" else None
    if event == "message.part.updated":
        if reason == "compaction":
            return "PreCompact", {"trigger": "auto" if record.trigger == "auto" else "manual"}
        if reason == "running":
            return ("Elicitation" if record.tool in INPUT_TOOLS else "PreToolUse"), {}
        if reason in ("completed", "error"):
            return ("PostToolUse" if reason == "completed" else "PostToolUseFailure"), {}
        return None
    if event == "message.updated":
        return "Stop", {}
    if event == "permission.asked":
        return "PermissionRequest", {}
    if event == "permission.replied":
        return "PermissionAnswered", {"reason": _REPLIES.get(reason or "", "allow")}
    if event == "question.asked":
        return "Elicitation", {}
    if event in ("question.replied", "question.rejected"):
        return "ElicitationResult", {}
    if event == "session.error":
        if record.error == "MessageAbortedError":
            return "Interrupt", {}
        return "StopFailure", {"error": error_name(record.error, _status(record.error_detail))}
    if event == "session.compacted":
        return "PostCompact", {}
    return None


# A child session's own start and end are a sub-agent's: the root's turn goes on.
_AS_SUBAGENT = {"SessionStart": "SubagentStart", "Interrupt": "SubagentStop"}


def evidence_from_record(record: SpoolRecord) -> Evidence | None:
    """The evidence of one record of lunavect's OpenCode plugin, or None when it names no session or says
    nothing the rules read."""
    evidence = shared_evidence(record)
    mapped = _kind(record) if evidence is not None else None
    if evidence is None or mapped is None:
        return None
    kind, fields = mapped
    if evidence.agent_id is not None:
        kind = _AS_SUBAGENT.get(kind, kind)
        fields = {**fields, "title": None}  # a child session's title is never its root session's
    values: dict = {
        "provider": OPENCODE.id,
        "kind": kind,
        "start_source": None,
        "reason": None,
        "trigger": None,
        "error": None,
        "error_detail": None,
    }
    values.update(fields)
    return msgspec.structs.replace(evidence, **values)
